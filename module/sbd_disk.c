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

#define SBD_AUTOSUSPEND_MS	2000

int sbd_major;
/* queue_mode: bio-based (the default) or blk-mq, for every disk. */
static bool sbd_use_mq;

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

/* A disk whose fops have ->submit_bio is bio-based; blk-mq ones must not. */
static const struct block_device_operations sbd_bio_fops = {
	.owner		= THIS_MODULE,
	.submit_bio	= sbd_submit_bio,
	.open		= sbd_open,
	.release	= sbd_release,
};

static const struct block_device_operations sbd_mq_fops = {
	.owner		= THIS_MODULE,
	.open		= sbd_open,
	.release	= sbd_release,
};

/*
 * Create and add the gendisk of @sbd, with the sbd device as its parent.
 * Called from probe, with the device lock held.
 */
int sbd_disk_add(struct sbd_dev *sbd)
{
	struct gendisk *disk;
	int ret;

	disk = sbd_use_mq ? sbd_mq_alloc_disk(sbd) : sbd_compat_alloc_bio_disk();
	if (IS_ERR(disk))
		return PTR_ERR(disk);

	disk->major = sbd_major;
	disk->first_minor = sbd->id * SBD_MINORS;
	disk->minors = SBD_MINORS;
	disk->fops = sbd_use_mq ? &sbd_mq_fops : &sbd_bio_fops;
	disk->private_data = sbd;
	snprintf(disk->disk_name, DISK_NAME_LEN, SBD_NAME "%u", sbd->id);

	/* Read-only from the start: no DISK_RO change right after the add. */
	mutex_lock(&sbd->lock);
	set_capacity(disk, sbd->size >> SECTOR_SHIFT);
	set_disk_ro(disk, sbd->read_only);
	sbd->disk = disk;
	mutex_unlock(&sbd->lock);

	/*
	 * Offline, the partition table cannot be read: the scan would fail
	 * and leave the disk without partitions.  Skip it until online.
	 */
	if (sbd->offline)
		set_bit(GD_SUPPRESS_PART_SCAN, &disk->state);

	/*
	 * The parent makes the links of the article: block/sbdN below the
	 * device, and /sys/block/sbdN/device back to it.
	 */
	ret = device_add_disk(&sbd->dev, disk, NULL);
	/*
	 * 6.1's device_add_disk() ignores a failed allocation in
	 * dev_set_name(), and device_add() then refuses the nameless device
	 * with EINVAL (found by the debug kernel's fail-nth sweep).  Only
	 * that case, a disk device left without a name, is told as the
	 * ENOMEM it was; any other error goes up as it came.
	 */
	if (ret == -EINVAL && !dev_name(disk_to_dev(disk)))
		ret = -ENOMEM;
	if (ret)
		goto err_put;
	if (sbd->offline)
		clear_bit(GD_SUPPRESS_PART_SCAN, &disk->state);
	/* Read just now, or to be read once online. */
	sbd->part_scan_pending = sbd->offline;

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

	/*
	 * Autosuspend off before runtime PM, the order in which
	 * devm_pm_runtime_enable() undoes the two: leaving autosuspend may
	 * run an idle check (update_autosuspend()), which a device already
	 * disabled would refuse, leaving its state behind.
	 */
	pm_runtime_dont_use_autosuspend(&sbd->dev);
	pm_runtime_disable(&sbd->dev);

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
 * Read the partitions of @disk again, with its open_mutex held.  One that
 * is open (-EBUSY) keeps them as they are, and the next online tries again.
 */
static void sbd_disk_rescan(struct sbd_dev *sbd, struct gendisk *disk)
{
	int err = bdev_disk_changed(disk, false);

	sbd->part_scan_pending = err == -EBUSY;
	if (err)
		dev_warn(&sbd->dev, "reading the partitions again failed: %d\n", err);
}

/*
 * Change the capacity of a closed disk: 1 when it changed, 0 when it was
 * already @size, -EBUSY while open.  The caller holds the device lock, so
 * that no probe or remove changes sbd->disk meanwhile.  The disk's
 * open_mutex is taken first (the block layer holds it around ->open, which
 * takes sbd->lock), so nobody opens the disk until its partitions have been
 * read again: one that no longer fits is cut to the disk or goes, as loop
 * does when its backing file changes.  Offline, that reading waits until
 * the disk is online again (sbd_disk_online()).
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
		if (sbd->offline)
			sbd->part_scan_pending = true;
		else
			sbd_disk_rescan(sbd, disk);
	}
	if (disk)
		mutex_unlock(&disk->open_mutex);
	return ret;
}

/*
 * The bus's offline callback, with the device lock held: from now on every
 * I/O fails, and the I/O already in flight has ended when this returns.
 * Freezing the queue waits for every bio inside ->submit_bio() and every
 * request blk-mq holds; the I/O that came meanwhile then finds the disk
 * offline.
 */
void sbd_disk_offline(struct sbd_dev *sbd)
{
	struct gendisk *disk;
	unsigned int flags;

	device_lock_assert(&sbd->dev);

	WRITE_ONCE(sbd->offline, true);
	mutex_lock(&sbd->lock);
	disk = sbd->disk;
	mutex_unlock(&sbd->lock);
	if (disk) {
		flags = sbd_compat_freeze(disk->queue);
		sbd_compat_unfreeze(disk->queue, flags);
	}
}

/*
 * The bus's online callback, with the device lock held: I/O works again,
 * and the partitions a resize or a probe could not read while offline are
 * read now, so that the user finds those the disk holds.
 */
void sbd_disk_online(struct sbd_dev *sbd)
{
	struct gendisk *disk;

	device_lock_assert(&sbd->dev);

	WRITE_ONCE(sbd->offline, false);
	mutex_lock(&sbd->lock);
	disk = sbd->disk;
	mutex_unlock(&sbd->lock);
	if (!disk || !sbd->part_scan_pending)
		return;
	mutex_lock(&disk->open_mutex);
	sbd_disk_rescan(sbd, disk);
	mutex_unlock(&disk->open_mutex);
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
	if (sbd->disk && sbd_use_mq)
		blk_mq_quiesce_queue(sbd->disk->queue);
	mutex_unlock(&sbd->lock);
	return 0;
}

static int sbd_resume(struct device *dev)
{
	struct sbd_dev *sbd = to_sbd_dev(dev);

	mutex_lock(&sbd->lock);
	if (sbd->disk && sbd_use_mq)
		blk_mq_unquiesce_queue(sbd->disk->queue);
	mutex_unlock(&sbd->lock);
	return 0;
}

const struct dev_pm_ops sbd_pm_ops = {
	SYSTEM_SLEEP_PM_OPS(sbd_suspend, sbd_resume)
	RUNTIME_PM_OPS(sbd_runtime_suspend, sbd_runtime_resume, NULL)
};

int sbd_disk_init(bool use_mq, unsigned int poll_queues)
{
	int ret;

	sbd_major = register_blkdev(0, SBD_NAME);
	if (sbd_major < 0)
		return sbd_major;

	sbd_use_mq = use_mq;
	if (!use_mq)
		return 0;
	ret = sbd_mq_init(poll_queues);
	if (ret)
		unregister_blkdev(sbd_major, SBD_NAME);
	return ret;
}

void sbd_disk_exit(void)
{
	if (sbd_use_mq)
		sbd_mq_exit();
	unregister_blkdev(sbd_major, SBD_NAME);
}
