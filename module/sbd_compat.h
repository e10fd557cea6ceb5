/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel APIs sbd uses that changed after 6.1, the oldest kernel it
 * supports.  Each switch names the release that changed the API.
 */
#ifndef SBD_COMPAT_H
#define SBD_COMPAT_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/sizes.h>
#include <linux/version.h>

/*
 * True when building for kernel @major.@minor or later.  Spelled with the
 * major and patch level, so that each switch below reads as the release
 * that changed the API.
 */
#define SBD_KERNEL_AT_LEAST(major, minor)				\
	(LINUX_VERSION_MAJOR * 256 + LINUX_VERSION_PATCHLEVEL >=	\
	 (major) * 256 + (minor))

/*
 * 6.8: subsys_system_register() takes a const struct bus_type ("driver
 * core: bus: constantify subsys_register() calls"), the last of the
 * driver-core interfaces sbd hands its bus to that came to take one.
 */
#if SBD_KERNEL_AT_LEAST(6, 8)
#define SBD_BUS_CONST const
#else
#define SBD_BUS_CONST
#endif

/*
 * 6.11: a bus's match callback takes a const struct device_driver ("driver
 * core: have match() callback in struct bus_type take a const *").
 */
#if SBD_KERNEL_AT_LEAST(6, 11)
#define SBD_MATCH_DRV_CONST const
#else
#define SBD_MATCH_DRV_CONST
#endif

/* 6.3: bus uevent callbacks take a const struct device. */
#if SBD_KERNEL_AT_LEAST(6, 3)
#define SBD_UEVENT_DEV_CONST const
#else
#define SBD_UEVENT_DEV_CONST
#endif

/* 6.14: merging is always on and the flag is gone. */
#if SBD_KERNEL_AT_LEAST(6, 14)
#define SBD_MQ_F_MERGE 0
#else
#define SBD_MQ_F_MERGE BLK_MQ_F_SHOULD_MERGE
#endif

/*
 * A copy in RAM has no reason to split I/O: let a request be as large as the
 * block layer makes them (the default, 255 sectors and 128 segments of
 * 64 KiB, cut a 1 MiB direct I/O into nine requests ending mid-page).
 */
#define SBD_MAX_HW_SECTORS	(SZ_4M >> SECTOR_SHIFT)
#define SBD_MAX_SEGMENTS	USHRT_MAX

/*
 * Discard and write-zeroes free a page at a time inside ->queue_rq(), which
 * must not run long: at most 128 MiB (32,768 pages) per request.  The
 * granularity is a page, what a discard can give back.
 */
#define SBD_MAX_DISCARD_SECTORS	(SZ_128M >> SECTOR_SHIFT)

/*
 * 6.9: queue limits are passed to blk_mq_alloc_disk() and blk_alloc_disk()
 * instead of being set one by one afterwards (the setters were removed in
 * 6.11, and with them the queue flags: non-rotational is the default from
 * then on, see sbd_compat_set_nonrot(), and NOWAIT and IO_STAT are features
 * in the limits).  The
 * bio-based disk sets NOWAIT (io_uring need not punt to a worker) and
 * IO_STAT (/proc/diskstats), which a blk-mq queue has by default.
 */
#if SBD_KERNEL_AT_LEAST(6, 9)
#define SBD_QUEUE_LIMITS {						\
	.logical_block_size	= SECTOR_SIZE,				\
	.physical_block_size	= PAGE_SIZE,				\
	.max_hw_sectors		= SBD_MAX_HW_SECTORS,			\
	.max_segments		= SBD_MAX_SEGMENTS,			\
	.max_segment_size	= UINT_MAX,				\
	.max_hw_discard_sectors	= SBD_MAX_DISCARD_SECTORS,		\
	.discard_granularity	= PAGE_SIZE,				\
	.max_write_zeroes_sectors = SBD_MAX_DISCARD_SECTORS,		\
}

/*
 * 6.11 (bd4a633b6f7c, "block: move the nonrot flag to queue_limits"): a
 * queue is non-rotational unless its limits have BLK_FEAT_ROTATIONAL, which
 * sbd never sets.  Before, every queue started rotational, with limits
 * passed in (6.9, 6.10) as without: QUEUE_FLAG_NONROT must be set.
 */
#if SBD_KERNEL_AT_LEAST(6, 11)
static inline void sbd_compat_set_nonrot(struct request_queue *q)
{
}
#else
static inline void sbd_compat_set_nonrot(struct request_queue *q)
{
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
}
#endif

static inline struct gendisk *sbd_compat_alloc_disk(struct blk_mq_tag_set *set,
						    void *queuedata)
{
	struct queue_limits lim = SBD_QUEUE_LIMITS;
	struct gendisk *disk = blk_mq_alloc_disk(set, &lim, queuedata);

	if (!IS_ERR(disk))
		sbd_compat_set_nonrot(disk->queue);
	return disk;
}

static inline struct gendisk *sbd_compat_alloc_bio_disk(void)
{
	struct queue_limits lim = SBD_QUEUE_LIMITS;
#if SBD_KERNEL_AT_LEAST(6, 11)
	lim.features |= BLK_FEAT_NOWAIT | BLK_FEAT_IO_STAT;
	return blk_alloc_disk(&lim, NUMA_NO_NODE);
#else
	struct gendisk *disk = blk_alloc_disk(&lim, NUMA_NO_NODE);

	if (!IS_ERR(disk)) {
		sbd_compat_set_nonrot(disk->queue);
		blk_queue_flag_set(QUEUE_FLAG_NOWAIT, disk->queue);
		blk_queue_flag_set(QUEUE_FLAG_IO_STAT, disk->queue);
	}
	return disk;
#endif
}
#else
static inline void sbd_compat_set_limits(struct request_queue *q)
{
	blk_queue_logical_block_size(q, SECTOR_SIZE);
	blk_queue_physical_block_size(q, PAGE_SIZE);
	blk_queue_max_hw_sectors(q, SBD_MAX_HW_SECTORS);
	blk_queue_max_segments(q, SBD_MAX_SEGMENTS);
	blk_queue_max_segment_size(q, UINT_MAX);
	blk_queue_max_discard_sectors(q, SBD_MAX_DISCARD_SECTORS);
	q->limits.discard_granularity = PAGE_SIZE;
	blk_queue_max_write_zeroes_sectors(q, SBD_MAX_DISCARD_SECTORS);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
}

static inline struct gendisk *sbd_compat_alloc_disk(struct blk_mq_tag_set *set,
						    void *queuedata)
{
	struct gendisk *disk = blk_mq_alloc_disk(set, queuedata);

	if (!IS_ERR(disk))
		sbd_compat_set_limits(disk->queue);
	return disk;
}

static inline struct gendisk *sbd_compat_alloc_bio_disk(void)
{
	struct gendisk *disk = blk_alloc_disk(NUMA_NO_NODE);

	if (!disk)
		return ERR_PTR(-ENOMEM);
	sbd_compat_set_limits(disk->queue);
	blk_queue_flag_set(QUEUE_FLAG_NOWAIT, disk->queue);
	blk_queue_flag_set(QUEUE_FLAG_IO_STAT, disk->queue);
	return disk;
}
#endif

/* 6.14: freezing returns memalloc flags that unfreezing restores. */
#if SBD_KERNEL_AT_LEAST(6, 14)
static inline unsigned int sbd_compat_freeze(struct request_queue *q)
{
	return blk_mq_freeze_queue(q);
}

static inline void sbd_compat_unfreeze(struct request_queue *q,
				       unsigned int flags)
{
	blk_mq_unfreeze_queue(q, flags);
}
#else
static inline unsigned int sbd_compat_freeze(struct request_queue *q)
{
	blk_mq_freeze_queue(q);
	return 0;
}

static inline void sbd_compat_unfreeze(struct request_queue *q,
				       unsigned int flags)
{
	blk_mq_unfreeze_queue(q);
}
#endif

#endif /* SBD_COMPAT_H */
