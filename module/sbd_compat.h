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

/* 6.8: subsys_system_register() takes a const struct bus_type, the last one. */
#if SBD_KERNEL_AT_LEAST(6, 8)
#define SBD_BUS_CONST const
#else
#define SBD_BUS_CONST
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
 * 6.9: queue limits are passed to blk_mq_alloc_disk() instead of being set
 * one by one afterwards (the setters were removed in 6.11, and with them the
 * NONROT flag, non-rotational being the default from then on).
 */
static inline struct gendisk *sbd_compat_alloc_disk(struct blk_mq_tag_set *set,
						    void *queuedata)
{
#if SBD_KERNEL_AT_LEAST(6, 9)
	struct queue_limits lim = {
		.logical_block_size	= SECTOR_SIZE,
		.physical_block_size	= PAGE_SIZE,
		.max_hw_sectors		= SBD_MAX_HW_SECTORS,
		.max_segments		= SBD_MAX_SEGMENTS,
		.max_segment_size	= UINT_MAX,
	};

	return blk_mq_alloc_disk(set, &lim, queuedata);
#else
	struct gendisk *disk = blk_mq_alloc_disk(set, queuedata);

	if (IS_ERR(disk))
		return disk;
	blk_queue_logical_block_size(disk->queue, SECTOR_SIZE);
	blk_queue_physical_block_size(disk->queue, PAGE_SIZE);
	blk_queue_max_hw_sectors(disk->queue, SBD_MAX_HW_SECTORS);
	blk_queue_max_segments(disk->queue, SBD_MAX_SEGMENTS);
	blk_queue_max_segment_size(disk->queue, UINT_MAX);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, disk->queue);
	return disk;
#endif
}

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
