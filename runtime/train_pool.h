/* train_pool.h - the types of the CUDA trainer's pool schedule
 * (train_pool.c). Copied into generated NAME.cu before train_pool.c, where
 * RT_FN is `static`; C and C++ alike. */
#ifndef DNNCC_TRAIN_POOL_H
#define DNNCC_TRAIN_POOL_H

#ifndef RT_FN
#define RT_FN
#endif

/* ---- train_pool.c ------------------------------------------------------------ */
/* One step of the CUDA trainer's epoch, in host issue order. Copy-stream ops:
 * WAIT_CONSUMED, COPY, RECORD_COPIED; compute-stream ops: WAIT_COPIED,
 * TRAIN, RECORD_CONSUMED. */
enum rt_pool_kind {
	RT_POOL_WAIT_CONSUMED,  /* copy stream waits event consumed[pool] */
	RT_POOL_COPY,           /* copy stream: batches first.. of the epoch into pool */
	RT_POOL_RECORD_COPIED,  /* copy stream records event copied[pool] */
	RT_POOL_WAIT_COPIED,    /* compute stream waits event copied[pool] */
	RT_POOL_TRAIN,          /* compute stream: one step per batch in pool */
	RT_POOL_RECORD_CONSUMED /* compute stream records event consumed[pool] */
};
struct rt_pool_op {
	int kind;        /* enum rt_pool_kind */
	int pool;        /* 0 or 1 */
	int chunk;       /* chunk number in the epoch */
	int first_batch; /* the chunk's first batch in the epoch */
	int n_batches;   /* batches in the chunk: K, or the remainder in the last one */
};
RT_FN int rt_pool_schedule(int n_batches, int K, struct rt_pool_op *ops, int cap);
RT_FN int rt_pool_max_ops(int n_batches, int K);

#endif
