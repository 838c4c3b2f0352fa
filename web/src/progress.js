// The glue's progress callback (sv_web.c): hands (done, total) of a long
// trial to the worker's Module.onProgress, when it set one.
mergeInto(LibraryManager.library, {
  svw_js_progress: function (done, total) {
    if (Module['onProgress']) Module['onProgress'](done, total);
  },
});
