// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The block side of sbd: a blk-mq gendisk per bound device, its I/O path and
 * its power management.  The gendisk exists while the sbd driver is bound to
 * the device (probe adds it, remove deletes it); the data lives in the
 * device itself, so unbinding and binding again keeps it.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/module.h>
#include <linux/pm_runtime.h>

#include "sbd.h"
#include "sbd_compat.h"

#define SBD_QUEUE_DEPTH		128
#define SBD_AUTOSUSPEND_MS	2000
/* How long a request waits for a page before it fails with an I/O error. */
#define SBD_ALLOC_RETRY_MS	1000

/* Per request: since when it has been waiting for a page (0: not waiting). */
struct sbd_cmd {
	unsigned long retry_since;
};

int sbd_major;

/* One tag set shared by every disk, so that a thousand disks stay cheap. */
static struct blk_mq_tag_set sbd_tag_set;

static blk_status_t sbd_transfer(struct sbd_dev *sbd, struct request *rq)
{
	bool write = op_is_write(req_op(rq));
	sector_t sector = blk_rq_pos(rq);
	struct req_iterator iter;
	struct bio_vec bv;
	int ret;

	if (write && READ_ONCE(sbd->read_only))
		return BLK_STS_IOERR;

	rq_for_each_segment(bv, rq, iter) {
		if (write)
			ret = sbd_store_write(sbd, sector, bv.bv_page,
					      bv.bv_offset, bv.bv_len);
		else
			ret = sbd_store_read(sbd, sector, bv.bv_page,
					     bv.bv_offset, bv.bv_len);
		/*
		 * Out of memory for a new page: blk-mq retries the request
		 * later (rewriting the segments already copied is harmless),
		 * until sbd_retry_or_fail() gives up.
		 */
		if (ret == -ENOMEM)
			return BLK_STS_RESOURCE;
		if (ret)
			return errno_to_blk_status(ret);
		sector += bv.bv_len >> SECTOR_SHIFT;
	}
	return BLK_STS_OK;
}

/*
 * The block layer checks a request against the partition it was sent to,
 * not against the disk: a partition must never reach beyond the capacity.
 */
static bool sbd_rq_within(struct request *rq)
{
	sector_t capacity = get_capacity(rq->q->disk);

	return blk_rq_pos(rq) <= capacity &&
	       blk_rq_sectors(rq) <= capacity - blk_rq_pos(rq);
}

/*
 * Discard and write-zeroes both give the range's pages back: a page that
 * is not there reads as zeros.  (REQ_NOUNMAP, which BLKZEROOUT sets, asks
 * to keep space provisioned; RAM needs no provisioning, and the budget
 * would only be held by zeros.)
 */
static blk_status_t sbd_discard(struct sbd_dev *sbd, struct request *rq)
{
	if (READ_ONCE(sbd->read_only))
		return BLK_STS_IOERR;
	sbd_store_discard(sbd, blk_rq_pos(rq), blk_rq_bytes(rq));
	return BLK_STS_OK;
}

/*
 * A request that found no page may be retried by blk-mq, but not for ever:
 * an endless requeue would leave its writer unkillable and the disk
 * impossible to delete.  After SBD_ALLOC_RETRY_MS it fails.
 */
static bool sbd_retry_again(struct sbd_cmd *cmd)
{
	unsigned long now = jiffies;

	if (!cmd->retry_since) {
		cmd->retry_since = now ? now : 1;
		return true;
	}
	return time_before(now, cmd->retry_since +
			   msecs_to_jiffies(SBD_ALLOC_RETRY_MS));
}

static blk_status_t sbd_queue_rq(struct blk_mq_hw_ctx *hctx,
				 const struct blk_mq_queue_data *bd)
{
	struct sbd_dev *sbd = hctx->queue->queuedata;
	struct request *rq = bd->rq;
	struct sbd_cmd *cmd = blk_mq_rq_to_pdu(rq);
	blk_status_t status;

	blk_mq_start_request(rq);

	if (READ_ONCE(sbd->offline)) {
		status = BLK_STS_OFFLINE;
	} else if (!sbd_rq_within(rq)) {
		status = BLK_STS_IOERR;
	} else {
		switch (req_op(rq)) {
		case REQ_OP_READ:
		case REQ_OP_WRITE:
			status = sbd_transfer(sbd, rq);
			break;
		case REQ_OP_DISCARD:
		case REQ_OP_WRITE_ZEROES:
			status = sbd_discard(sbd, rq);
			break;
		case REQ_OP_FLUSH:
			status = BLK_STS_OK;
			break;
		default:
			status = BLK_STS_NOTSUPP;
			break;
		}
	}

	if (status == BLK_STS_RESOURCE) {
		if (sbd_retry_again(cmd))
			return status;
		status = BLK_STS_IOERR;
	}
	cmd->retry_since = 0;
	blk_mq_end_request(rq, status);
	return BLK_STS_OK;
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
	.map_queues	= sbd_map_queues,
	.poll		= sbd_poll,
};

/*
 * Opening a disk holds a reference on its device, so that the data outlives
 * a delete or an unbind until the last opener is gone, and resumes it for
 * runtime PM.  A disk being deleted refuses new openers.
 */
static int sbd_open_disk(struct gendisk *disk)
{
	struct sbd_dev *sbd = disk->private_data;
	int ret = 0;

	mutex_lock(&sbd->lock);
	if (sbd->dying) {
		ret = -ENXIO;
	} else {
		sbd->open_count++;
		get_device(&sbd->dev);
	}
	mutex_unlock(&sbd->lock);
	if (ret)
		return ret;

	/*
	 * Resuming RAM cannot fail; what matters is the usage count, which
	 * keeps the device active while it is open.
	 */
	pm_runtime_get_sync(&sbd->dev);
	return 0;
}

static void sbd_release_disk(struct gendisk *disk)
{
	struct sbd_dev *sbd = disk->private_data;

	mutex_lock(&sbd->lock);
	sbd->open_count--;
	mutex_unlock(&sbd->lock);

	pm_runtime_mark_last_busy(&sbd->dev);
	pm_runtime_put_autosuspend(&sbd->dev);
	put_device(&sbd->dev);
}

/* 6.5: ->open takes the gendisk and ->release loses its mode. */
#if SBD_KERNEL_AT_LEAST(6, 5)
static int sbd_open(struct gendisk *disk, blk_mode_t mode)
{
	return sbd_open_disk(disk);
}

static void sbd_release(struct gendisk *disk)
{
	sbd_release_disk(disk);
}
#else
static int sbd_open(struct block_device *bdev, fmode_t mode)
{
	return sbd_open_disk(bdev->bd_disk);
}

static void sbd_release(struct gendisk *disk, fmode_t mode)
{
	sbd_release_disk(disk);
}
#endif

static const struct block_device_operations sbd_fops = {
	.owner		= THIS_MODULE,
	.open		= sbd_open,
	.release	= sbd_release,
};

/* Create and add the gendisk of @sbd, with the sbd device as its parent. */
int sbd_disk_add(struct sbd_dev *sbd)
{
	struct gendisk *disk;
	int ret;

	disk = sbd_compat_alloc_disk(&sbd_tag_set, sbd);
	if (IS_ERR(disk))
		return PTR_ERR(disk);

	disk->major = sbd_major;
	disk->first_minor = sbd->id * SBD_MINORS;
	disk->minors = SBD_MINORS;
	disk->fops = &sbd_fops;
	disk->private_data = sbd;
	snprintf(disk->disk_name, DISK_NAME_LEN, SBD_NAME "%u", sbd->id);

	/* Read-only from the start: no DISK_RO change right after the add. */
	mutex_lock(&sbd->lock);
	set_capacity(disk, sbd->size >> SECTOR_SHIFT);
	set_disk_ro(disk, sbd->read_only);
	sbd->disk = disk;
	mutex_unlock(&sbd->lock);

	/*
	 * The parent makes the links of the article: block/sbdN below the
	 * device, and /sys/block/sbdN/device back to it.
	 */
	ret = device_add_disk(&sbd->dev, disk, NULL);
	if (ret)
		goto err_put;

	pm_runtime_set_autosuspend_delay(&sbd->dev, SBD_AUTOSUSPEND_MS);
	pm_runtime_use_autosuspend(&sbd->dev);
	pm_runtime_enable(&sbd->dev);
	return 0;

err_put:
	mutex_lock(&sbd->lock);
	sbd->disk = NULL;
	mutex_unlock(&sbd->lock);
	put_disk(disk);
	return ret;
}

/* Delete the gendisk; del_gendisk() waits for the I/O in flight. */
void sbd_disk_remove(struct sbd_dev *sbd)
{
	struct gendisk *disk;

	pm_runtime_disable(&sbd->dev);
	pm_runtime_dont_use_autosuspend(&sbd->dev);

	mutex_lock(&sbd->lock);
	disk = sbd->disk;
	sbd->disk = NULL;
	mutex_unlock(&sbd->lock);

	if (!disk)
		return;
	del_gendisk(disk);
	put_disk(disk);
}

/* Called with the queue frozen: nothing reads a page being dropped. */
static void sbd_disk_resize_frozen(struct sbd_dev *sbd, u64 size)
{
	sbd->size = size;
	sbd_store_truncate(sbd, size);
	if (sbd->disk)
		set_capacity_and_notify(sbd->disk, size >> SECTOR_SHIFT);
}

/*
 * Change the capacity of a closed disk: 1 when it changed, 0 when it was
 * already @size, -EBUSY while open.  The caller holds the device lock, so
 * that no probe or remove changes sbd->disk meanwhile.  The disk's
 * open_mutex is taken first (the block layer holds it around ->open, which
 * takes sbd->lock), so nobody opens the disk until its partitions have been
 * read again: one that no longer fits is cut to the disk or goes, as loop
 * does when its backing file changes.
 */
int sbd_disk_set_size(struct sbd_dev *sbd, u64 size)
{
	struct gendisk *disk = sbd->disk;
	unsigned int flags = 0;
	int ret = 1;

	device_lock_assert(&sbd->dev);

	if (disk)
		mutex_lock(&disk->open_mutex);
	mutex_lock(&sbd->lock);
	if (size == sbd->size) {
		ret = 0;
	} else if (sbd->open_count) {
		ret = -EBUSY;
	} else if (disk) {
		flags = sbd_compat_freeze(disk->queue);
		sbd_disk_resize_frozen(sbd, size);
		sbd_compat_unfreeze(disk->queue, flags);
	} else {
		sbd_disk_resize_frozen(sbd, size);
	}
	mutex_unlock(&sbd->lock);

	if (ret > 0 && disk) {
		int err = bdev_disk_changed(disk, false);

		if (err)
			dev_warn(&sbd->dev, "reading the partitions again failed: %d\n", err);
	}
	if (disk)
		mutex_unlock(&disk->open_mutex);
	return ret;
}

static int sbd_runtime_suspend(struct device *dev)
{
	dev_dbg(dev, "runtime suspend\n");
	return 0;
}

static int sbd_runtime_resume(struct device *dev)
{
	dev_dbg(dev, "runtime resume\n");
	return 0;
}

/* System sleep: RAM keeps its contents; just hold the I/O back meanwhile. */
static int sbd_suspend(struct device *dev)
{
	struct sbd_dev *sbd = to_sbd_dev(dev);

	mutex_lock(&sbd->lock);
	if (sbd->disk)
		blk_mq_quiesce_queue(sbd->disk->queue);
	mutex_unlock(&sbd->lock);
	return 0;
}

static int sbd_resume(struct device *dev)
{
	struct sbd_dev *sbd = to_sbd_dev(dev);

	mutex_lock(&sbd->lock);
	if (sbd->disk)
		blk_mq_unquiesce_queue(sbd->disk->queue);
	mutex_unlock(&sbd->lock);
	return 0;
}

const struct dev_pm_ops sbd_pm_ops = {
	SYSTEM_SLEEP_PM_OPS(sbd_suspend, sbd_resume)
	RUNTIME_PM_OPS(sbd_runtime_suspend, sbd_runtime_resume, NULL)
};

int sbd_disk_init(unsigned int poll_queues)
{
	int ret;

	sbd_major = register_blkdev(0, SBD_NAME);
	if (sbd_major < 0)
		return sbd_major;

	sbd_tag_set.ops = &sbd_mq_ops;
	sbd_tag_set.nr_hw_queues = 1 + poll_queues;
	sbd_tag_set.nr_maps = poll_queues ? HCTX_MAX_TYPES : 1;
	sbd_tag_set.queue_depth = SBD_QUEUE_DEPTH;
	sbd_tag_set.numa_node = NUMA_NO_NODE;
	sbd_tag_set.cmd_size = sizeof(struct sbd_cmd);
	/* No scheduler by default: reordering requests buys RAM nothing. */
	sbd_tag_set.flags = SBD_MQ_F_MERGE | BLK_MQ_F_NO_SCHED_BY_DEFAULT;

	ret = blk_mq_alloc_tag_set(&sbd_tag_set);
	if (ret) {
		unregister_blkdev(sbd_major, SBD_NAME);
		return ret;
	}
	return 0;
}

void sbd_disk_exit(void)
{
	blk_mq_free_tag_set(&sbd_tag_set);
	unregister_blkdev(sbd_major, SBD_NAME);
}
