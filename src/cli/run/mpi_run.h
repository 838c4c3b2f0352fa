/* mpirun -n P sdpa-var ... (built with -DSV_MPI=ON only): the trials (or,
 * with fewer trials than ranks, the blocks of 4096 query rows) cut into P
 * contiguous ranges, one a rank, each run into a state in memory;
 * rank 0 gathers them in rank order, merges them (sv_state_merge) and
 * writes what one process prints (docs/scaling.md). */
#ifndef SDPA_VAR_CLI_MPI_RUN_H
#define SDPA_VAR_CLI_MPI_RUN_H

#include "specs.h"

/* MPI_Init: before anything reads argv. */
void cli_mpi_begin(int *argc, char ***argv);

/* The ranks of MPI_COMM_WORLD (1 without mpirun). */
int cli_mpi_ranks(void);

/* This process's rank in MPI_COMM_WORLD (0 without mpirun). */
int cli_mpi_rank(void);

/* Nonzero when started by mpirun (even -n 1): stdout is then mpirun's
 * pty, not the user's terminal. */
int cli_mpi_launched(void);

/* Runs @p plan's trials split across the ranks; rank 0 writes the
 * merged result in plan->out.format. Every rank returns the same exit
 * status: 2 (rank 0 says why) for what a split run cannot do (per-trial
 * or histogram output, --columns, gnuplot, measured --q/--k,
 * --first-trial, --q-rows, fewer trials than ranks), 1 when a rank
 * failed (it said why). */
int cli_mpi_run(const cli_plan *plan);

/* MPI_Finalize; @return status. */
int cli_mpi_end(int status);

#endif
