/**
 * @file sdpa_var.h
 * Umbrella header of the sdpa-var library: why scaled dot-product attention
 * divides by sqrt(d_k), measured. softmax(Q K^T / sqrt(d_k)) V is eq. 1 of
 * Vaswani et al., "Attention Is All You Need", NeurIPS 2017.
 */
#ifndef SDPA_VAR_H
#define SDPA_VAR_H

#include "sdpa_var/alloc.h"
#include "sdpa_var/columns.h"
#include "sdpa_var/cpu.h"
#include "sdpa_var/dklist.h"
#include "sdpa_var/engine.h"
#include "sdpa_var/rowfold.h"
#include "sdpa_var/run.h"
#include "sdpa_var/moments.h"
#include "sdpa_var/param.h"
#include "sdpa_var/rng.h"
#include "sdpa_var/sampler.h"
#include "sdpa_var/softmax.h"
#include "sdpa_var/source.h"
#include "sdpa_var/spec.h"
#include "sdpa_var/state.h"
#include "sdpa_var/status.h"
#include "sdpa_var/summary.h"
#include "sdpa_var/tensor_file.h"
#include "sdpa_var/theory.h"
#include "sdpa_var/version.h"
#include "sdpa_var/version_query.h"

#endif
