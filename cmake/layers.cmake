# The layers of src/, lowest first: the one place their order is written.
# scripts/check_layers.py reads these two lists; docs/architecture.md says
# what each layer may know.
set(SV_LAYERS core experiment theory source io engine report api)
set(SV_CLI_LAYERS base parse write run)

# sv_layer(NAME SOURCES...): object library sv_NAME of src/NAME/. Its folder
# is an include directory for itself and, through the link, for the layers
# above it that link it: each links the one below, so a header of a higher
# layer is never on a lower one's include path.
function(sv_layer name)
  add_library(sv_${name} OBJECT ${ARGN})
  list(FIND SV_LAYERS ${name} at)
  if(at LESS 0)
    message(FATAL_ERROR "sv_layer: '${name}' is not in SV_LAYERS")
  endif()
  target_include_directories(sv_${name}
    PUBLIC ${PROJECT_SOURCE_DIR}/src/${name}
           $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
           $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated>)
  target_compile_options(sv_${name} PRIVATE ${SV_WARNINGS})
  # The library implements the advanced headers too (sdpa_var.h).
  target_compile_definitions(sv_${name} PRIVATE SDPA_VAR_ADVANCED)
  # `omp simd` and `omp parallel` are in several layers.
  if(NOT SV_WASM)
    target_link_libraries(sv_${name} PRIVATE OpenMP::OpenMP_C)
  endif()
  if(BUILD_SHARED_LIBS)
    set_target_properties(sv_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
      # Calls between the library's own functions stay direct (and
      # inlinable), as in the static library: nobody interposes them.
      target_compile_options(sv_${name} PRIVATE -fno-semantic-interposition)
    endif()
  endif()
  if(at GREATER 0)
    math(EXPR below "${at} - 1")
    list(GET SV_LAYERS ${below} lower)
    target_link_libraries(sv_${name} PUBLIC sv_${lower})
  endif()
endfunction()

# sv_cli_layer(NAME SOURCES...): the same for src/cli/NAME/, above the
# whole library.
function(sv_cli_layer name)
  add_library(sv_cli_${name} OBJECT ${ARGN})
  list(FIND SV_CLI_LAYERS ${name} at)
  if(at LESS 0)
    message(FATAL_ERROR "sv_cli_layer: '${name}' is not in SV_CLI_LAYERS")
  endif()
  target_include_directories(sv_cli_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src/cli/${name})
  target_compile_options(sv_cli_${name} PRIVATE ${SV_WARNINGS})
  # The CLI reads files and folds rows: advanced API (sdpa_var.h).
  target_compile_definitions(sv_cli_${name} PRIVATE SDPA_VAR_ADVANCED)
  if(at GREATER 0)
    math(EXPR below "${at} - 1")
    list(GET SV_CLI_LAYERS ${below} lower)
    target_link_libraries(sv_cli_${name} PUBLIC sv_cli_${lower})
  else()
    target_include_directories(sv_cli_${name} PUBLIC
      $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
      $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated>)
  endif()
endfunction()
