/**
 * @file sdpa_var.h
 * Umbrella header of the sdpa-var library: why scaled dot-product attention
 * divides by sqrt(d_k), measured. softmax(Q K^T / sqrt(d_k)) V is eq. 1 of
 * Vaswani et al., "Attention Is All You Need", NeurIPS 2017.
 *
 * The stable API, in the order to read it: an experiment as plain values
 * (spec.h), its parameters by name (param.h), the one error table
 * (status.h), where rows of Q and K come from (source.h), the run of trials
 * (engine.h), a configuration's whole run in chunks (run.h), trials
 * reduced in mergeable blocks (partial.h), their summary (summary.h) with
 * the closed forms it is compared with (theory.h), the named columns of
 * every output (columns.h, columns_list.h), a run's mergeable state
 * (state.h), and the library's version (version.h, version_query.h).
 * The advanced API, the building blocks under it, may change between minor
 * versions: the generator (rng.h), the distributions (sampler.h), moments,
 * softmax accumulators, the fold of rows (rowfold.h), CPU features
 * (cpu.h), d_k lists (dklist.h), the caller's allocator (alloc.h) and
 * tensor files (tensor_file.h). Define
 * SDPA_VAR_ADVANCED before the first include to get it, as zstd's
 * ZSTD_STATIC_LINKING_ONLY: without it those headers refuse to compile,
 * or, where a stable header needs their types, declare only the types.
 */
#ifndef SDPA_VAR_H
#define SDPA_VAR_H

#include "sdpa_var/spec.h"
#include "sdpa_var/param.h"
#include "sdpa_var/status.h"
#include "sdpa_var/source.h"
#include "sdpa_var/engine.h"
#include "sdpa_var/run.h"
#include "sdpa_var/partial.h"
#include "sdpa_var/summary.h"
#include "sdpa_var/theory.h"
#include "sdpa_var/columns.h"
#include "sdpa_var/columns_list.h"
#include "sdpa_var/state.h"
#include "sdpa_var/version.h"
#include "sdpa_var/version_query.h"

#endif

#if defined(SDPA_VAR_ADVANCED) && !defined(SDPA_VAR_H_ADVANCED)
#define SDPA_VAR_H_ADVANCED

#include "sdpa_var/rng.h"
#include "sdpa_var/sampler.h"
#include "sdpa_var/moments.h"
#include "sdpa_var/softmax.h"
#include "sdpa_var/rowfold.h"
#include "sdpa_var/cpu.h"
#include "sdpa_var/dklist.h"
#include "sdpa_var/alloc.h"
#include "sdpa_var/tensor_file.h"

#endif
