/* train_pool.c - the host-side schedule of the CUDA trainer's two batch
 * pools, in plain C so that it is unit-tested on the CPU (test_train.c) and
 * copied as it is into generated NAME.cu.
 *
 * An epoch of n_batches batches is cut into chunks of K batches (the last
 * chunk holds the n_batches % K remainder batches, when there are any).
 * Chunk c lives in device pool c % 2. Two streams and four events:
 *   copy stream:     copy chunk c into pool c % 2, record copied[c % 2]
 *   compute stream:  wait copied[c % 2], train on the chunk's batches,
 *                    record consumed[c % 2]
 * and before the copy of chunk c + 1 into pool (c + 1) % 2 the copy stream
 * waits consumed[(c + 1) % 2], recorded after chunk c - 1 (the chunk that
 * used that pool last), so a pool is never overwritten while it is read.
 * The ops come in the order the host issues them: the copy of chunk c + 1 is
 * issued before the training of chunk c, so it overlaps with it.
 *
 * A wait refers to the event's latest record issued before it
 * (cudaStreamWaitEvent semantics); a wait on an event never recorded is a
 * no-op. */
#include "runtime/rt_types.h"
#include "runtime/train_pool.h"

/* Appends one op if it fits; returns the new count. */
static int rt_pool_put_(struct rt_pool_op *ops, int n, int cap, int kind, int pool, int chunk,
                        int first, int count)
{
	if (n < cap) {
		ops[n].kind = kind;
		ops[n].pool = pool;
		ops[n].chunk = chunk;
		ops[n].first_batch = first;
		ops[n].n_batches = count;
	}
	return n + 1;
}

/* Writes the ops of one epoch into ops[cap] in issue order; returns their
 * number (more than cap means ops was too short: call again with a larger
 * array; rt_pool_max_ops says how large). */
RT_FN int rt_pool_schedule(int n_batches, int K, struct rt_pool_op *ops, int cap)
{
	int n = 0;
	if (n_batches <= 0 || K <= 0)
		return 0;
	const int chunks = (n_batches + K - 1) / K;
	for (int c = 0; c <= chunks; c++) {
		/* the copy of chunk c, issued before the training of chunk c - 1 */
		if (c < chunks) {
			const int first = c * K, count = n_batches - first < K ? n_batches - first : K;
			n = rt_pool_put_(ops, n, cap, RT_POOL_WAIT_CONSUMED, c % 2, c, first, count);
			n = rt_pool_put_(ops, n, cap, RT_POOL_COPY, c % 2, c, first, count);
			n = rt_pool_put_(ops, n, cap, RT_POOL_RECORD_COPIED, c % 2, c, first, count);
		}
		if (c > 0) {
			const int t = c - 1, first = t * K;
			const int count = n_batches - first < K ? n_batches - first : K;
			n = rt_pool_put_(ops, n, cap, RT_POOL_WAIT_COPIED, t % 2, t, first, count);
			n = rt_pool_put_(ops, n, cap, RT_POOL_TRAIN, t % 2, t, first, count);
			n = rt_pool_put_(ops, n, cap, RT_POOL_RECORD_CONSUMED, t % 2, t, first, count);
		}
	}
	return n;
}

/* The number of ops rt_pool_schedule writes for these sizes. */
RT_FN int rt_pool_max_ops(int n_batches, int K)
{
	if (n_batches <= 0 || K <= 0)
		return 0;
	return 6 * ((n_batches + K - 1) / K);
}
