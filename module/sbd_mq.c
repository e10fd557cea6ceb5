// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The blk-mq path (queue_mode=mq): one tag set shared by every disk, so
 * that a thousand disks stay cheap, with an I/O scheduler to choose, the
 * queue's hardware contexts in debugfs, and poll queues (poll_queues).
 * ->queue_rq() never sleeps: a write that needs a page it cannot get at
 * once (GFP_NOWAIT) is handed to a worker that may sleep and reclaim
 * (GFP_NOIO), as loop hands all its I/O to workers, so that mq mode fails
 * no write that the bio path, which allocates so, would complete.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/workqueue.h>

#include "sbd.h"
#include "sbd_compat.h"

#define SBD_QUEUE_DEPTH		128

/* Per request: the work that finishes it where allocating may sleep. */
struct sbd_cmd {
	struct work_struct work;
};

/* One tag set shared by every disk, so that a thousand disks stay cheap. */
static struct blk_mq_tag_set sbd_tag_set;

/*
 * The workers of writes that need memory: WQ_MEM_RECLAIM, as they may be
 * what reclaim waits for (swap on an sbd disk), so a rescuer thread keeps
 * them going when no new worker can be made.
 */
static struct workqueue_struct *sbd_alloc_wq;

static blk_status_t sbd_mq_transfer(struct sbd_dev *sbd, struct request *rq,
				    gfp_t gfp)
{
	bool write = op_is_write(req_op(rq));
	sector_t sector = blk_rq_pos(rq);
	struct req_iterator iter;
	struct bio_vec bv;
	int ret;

	rq_for_each_segment(bv, rq, iter) {
		ret = sbd_io_segment(sbd, write, sector, &bv, gfp);
		/*
		 * No page without sleeping: the worker does the request again
		 * (rewriting the segments already copied is harmless).  No
		 * page even so: an I/O error, as the bio path answers.
		 */
		if (ret == -ENOMEM)
			return gfpflags_allow_blocking(gfp) ? BLK_STS_IOERR :
							      BLK_STS_RESOURCE;
		if (ret)
			return errno_to_blk_status(ret);
		sector += bv.bv_len >> SECTOR_SHIFT;
	}
	return BLK_STS_OK;
}

static blk_status_t sbd_mq_do(struct sbd_dev *sbd, struct request *rq,
			      gfp_t gfp)
{
	blk_status_t status;

	status = sbd_io_check(sbd, rq->q->disk, req_op(rq), blk_rq_pos(rq),
			      blk_rq_sectors(rq));
	if (status)
		return status;

	switch (req_op(rq)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		return sbd_mq_transfer(sbd, rq, gfp);
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		sbd_store_discard(sbd, blk_rq_pos(rq), blk_rq_bytes(rq),
				  !(rq->cmd_flags & REQ_NOUNMAP));
		return BLK_STS_OK;
	case REQ_OP_FLUSH:
		return BLK_STS_OK;
	default:
		return BLK_STS_NOTSUPP;
	}
}

/*
 * A write that found no page at once, done again where allocating may
 * sleep: GFP_NOIO, as the bio path allocates.  The request is still
 * started and holds the queue, so freezing, quiescing and deleting the
 * disk wait for it as for any other.
 */
static void sbd_mq_alloc_work(struct work_struct *work)
{
	struct sbd_cmd *cmd = container_of(work, struct sbd_cmd, work);
	struct request *rq = blk_mq_rq_from_pdu(cmd);

	blk_mq_end_request(rq, sbd_mq_do(rq->q->queuedata, rq, GFP_NOIO));
}

static blk_status_t sbd_queue_rq(struct blk_mq_hw_ctx *hctx,
				 const struct blk_mq_queue_data *bd)
{
	struct sbd_dev *sbd = hctx->queue->queuedata;
	struct request *rq = bd->rq;
	struct sbd_cmd *cmd = blk_mq_rq_to_pdu(rq);
	blk_status_t status;

	blk_mq_start_request(rq);
	status = sbd_mq_do(sbd, rq, GFP_NOWAIT);
	if (status == BLK_STS_RESOURCE) {
		queue_work(sbd_alloc_wq, &cmd->work);
		return BLK_STS_OK;
	}
	blk_mq_end_request(rq, status);
	return BLK_STS_OK;
}

static int sbd_init_request(struct blk_mq_tag_set *set, struct request *rq,
			    unsigned int hctx_idx, unsigned int numa_node)
{
	struct sbd_cmd *cmd = blk_mq_rq_to_pdu(rq);

	INIT_WORK(&cmd->work, sbd_mq_alloc_work);
	return 0;
}

/*
 * Poll queues: requests marked REQ_POLLED (io_uring with IORING_SETUP_IOPOLL,
 * preadv2 with RWF_HIPRI) go to hardware queues of their own, which raise
 * no completion of their own but are polled.  A RAM disk ends every request
 * inside ->queue_rq(), so by the time its submitter polls there is nothing
 * left to find: the poller sees the request already done.
 */
static int sbd_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	return 0;
}

/* Queue 0 serves ordinary I/O, queues 1 to poll_queues polled I/O. */
static void sbd_map_queues(struct blk_mq_tag_set *set)
{
	struct blk_mq_queue_map *map;
	unsigned int i, offset = 0;

	for (i = 0; i < set->nr_maps; i++) {
		map = &set->map[i];
		map->queue_offset = offset;
		if (i == HCTX_TYPE_DEFAULT)
			map->nr_queues = 1;
		else if (i == HCTX_TYPE_POLL)
			map->nr_queues = set->nr_hw_queues - 1;
		else
			map->nr_queues = 0;
		if (!map->nr_queues)
			continue;
		blk_mq_map_queues(map);
		offset += map->nr_queues;
	}
}

static const struct blk_mq_ops sbd_mq_ops = {
	.queue_rq	= sbd_queue_rq,
	.init_request	= sbd_init_request,
	.map_queues	= sbd_map_queues,
	.poll		= sbd_poll,
};

struct gendisk *sbd_mq_alloc_disk(struct sbd_dev *sbd)
{
	return sbd_compat_alloc_disk(&sbd_tag_set, sbd);
}

int sbd_mq_init(unsigned int poll_queues)
{
	int ret;

	sbd_tag_set.ops = &sbd_mq_ops;
	sbd_tag_set.nr_hw_queues = 1 + poll_queues;
	sbd_tag_set.nr_maps = poll_queues ? HCTX_MAX_TYPES : 1;
	sbd_tag_set.queue_depth = SBD_QUEUE_DEPTH;
	sbd_tag_set.numa_node = NUMA_NO_NODE;
	sbd_tag_set.cmd_size = sizeof(struct sbd_cmd);
	/* No scheduler by default: reordering requests buys RAM nothing. */
	sbd_tag_set.flags = SBD_MQ_F_MERGE | BLK_MQ_F_NO_SCHED_BY_DEFAULT;

	sbd_alloc_wq = alloc_workqueue(SBD_NAME "_alloc", WQ_MEM_RECLAIM, 0);
	if (!sbd_alloc_wq)
		return -ENOMEM;
	ret = blk_mq_alloc_tag_set(&sbd_tag_set);
	if (ret)
		destroy_workqueue(sbd_alloc_wq);
	return ret;
}

/*
 * Every disk is gone, and with it every request: the workqueue has
 * nothing left but perhaps a worker returning from its last request.
 */
void sbd_mq_exit(void)
{
	destroy_workqueue(sbd_alloc_wq);
	blk_mq_free_tag_set(&sbd_tag_set);
}
