/* fuzz.h - what the fuzz harnesses share. Each harness (fuzz_*.c) defines
 * LLVMFuzzerTestOneInput, libFuzzer's entry point: it feeds the bytes to one
 * frontend through its from-memory API and, when the frontend accepts them,
 * runs the front of the pipeline on the graph the way driver/main.c does.
 * The same harness files link either with libFuzzer (make fuzz, built by
 * FUZZ_CC with -fsanitize=fuzzer) or with replay.c (make check), which runs
 * the committed corpus and the saved crash reproducers through them.
 *
 * Bad input must end in messages, never in a crash, a leak or a broken IR:
 * the harness aborts when the verifier finds a graph a frontend or pass let
 * through without reporting an error, which is dnncc's bug, not the input's. */
#ifndef DNNCC_FUZZ_H
#define DNNCC_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "frontend/frontend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A diag whose messages go nowhere: the fuzzer makes millions of them. */
void fuzz_diag(struct diag *d, const char *file);

/* Inputs that got through the frontend and every pass without an error, so
 * far: replay.c checks that the committed seeds all do. */
extern int fuzz_accepted;

/* Verifies what a frontend returned, then runs infer_shapes and canonicalize
 * with the verifier after each, as the driver does; aborts on a verifier
 * failure no error explains. Frees g. */
void fuzz_pipeline(struct graph *g, const struct options *opt, struct diag *d);

#endif
