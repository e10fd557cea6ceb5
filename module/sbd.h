/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sbd: the Simple Block Device of LWN's "Driver porting: Devices and
 * attributes", ported to today's driver model and blk-mq.
 */
#ifndef SBD_H
#define SBD_H

#include <linux/blk_types.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "sbd_compat.h"

#define SBD_NAME		"sbd"
#define SBD_VERSION		"0.1.0"
#define SBD_DEVICE_NAME		"Simple block device"

/* Minors per disk: room for 15 partitions. */
#define SBD_MINORS		16
#define SBD_MAX_ID		((1U << MINORBITS) / SBD_MINORS - 1)
#define SBD_LABEL_MAX		31

/*
 * The largest size of anything, in bytes: a disk's size is a loff_t in the
 * block layer (2^63 and more would be negative), and its page count must
 * not wrap when rounded up.  MAX_LFS_FILESIZE rounded down to a page,
 * 2^63 - 4096 on 64-bit kernels.
 */
#define SBD_SIZE_CAP	((u64)round_down(MAX_LFS_FILESIZE, PAGE_SIZE))

/*
 * One disk.  The struct device is embedded, and deliberately not the first
 * member: code goes from it to the disk with container_of(), never a cast.
 * The device's release callback owns the freeing of everything here.
 */
struct sbd_dev {
	u32 id;
	struct list_head list;		/* on sbd_devices, under sbd_lock */

	/* Guards every field below up to @pages, and the attribute stores. */
	struct mutex lock;
	u64 size;			/* capacity in bytes */
	bool read_only;
	bool dying;			/* being deleted: refuse new opens */
	unsigned int open_count;
	char label[SBD_LABEL_MAX + 1];
	struct gendisk *disk;		/* NULL while no driver is bound */
	int probe_err;
	bool matched;			/* the driver core tried to bind it */

	/*
	 * Set and read under the device lock, where the driver core calls the
	 * bus's online and offline callbacks.  While offline the partitions
	 * are never read (the reading would fail and drop them): a resize or
	 * a probe meanwhile leaves @part_scan_pending for sbd_disk_online().
	 */
	bool offline;
	bool part_scan_pending;
	struct xarray pages;		/* data, a page allocated on first write */
	atomic_long_t nr_pages;		/* pages in @pages: the disk's mem_used */

	struct device dev;
};

static inline struct sbd_dev *to_sbd_dev(struct device *dev)
{
	return container_of(dev, struct sbd_dev, dev);
}

/* sbd_main.c */
extern int sbd_major;
extern u64 sbd_max_size;
extern u64 sbd_max_total;
extern SBD_BUS_CONST struct bus_type sbd_bus;

/* sbd_sysfs.c */
extern const struct attribute_group *sbd_dev_groups[];
extern const struct attribute_group *sbd_driver_groups[];
int sbd_parse_u64(const char *buf, size_t count, u64 *value);
int sbd_parse_bytes(const char *buf, size_t count, u64 *bytes);
void sbd_notify_change(struct sbd_dev *sbd, const char *attr);

/* sbd_registry.c */
int sbd_registry_create(u64 size, int id);
int sbd_registry_delete(u32 id);
unsigned int sbd_registry_count(void);
int sbd_registry_init(void);
void sbd_registry_exit(void);

/* sbd_disk.c */
int sbd_disk_init(bool use_mq, unsigned int poll_queues);
void sbd_disk_exit(void);
int sbd_disk_add(struct sbd_dev *sbd);
void sbd_disk_remove(struct sbd_dev *sbd);
int sbd_disk_set_size(struct sbd_dev *sbd, u64 size);
void sbd_disk_offline(struct sbd_dev *sbd);
void sbd_disk_online(struct sbd_dev *sbd);
extern const struct dev_pm_ops sbd_pm_ops;

/* sbd_io.c */
blk_status_t sbd_io_check(struct sbd_dev *sbd, struct gendisk *disk,
			  enum req_op op, sector_t sector, sector_t sectors);
int sbd_io_segment(struct sbd_dev *sbd, bool write, sector_t sector,
		   struct bio_vec *bv, gfp_t gfp);
void sbd_submit_bio(struct bio *bio);

/* sbd_mq.c */
struct gendisk *sbd_mq_alloc_disk(struct sbd_dev *sbd);
int sbd_mq_init(unsigned int poll_queues);
void sbd_mq_exit(void);

/* sbd_store.c */
void sbd_store_set_budget(u64 max_total);
u64 sbd_store_mem_used(void);
u64 sbd_store_mem_max(void);
u64 sbd_store_dev_mem_used(struct sbd_dev *sbd);
void sbd_store_init(struct sbd_dev *sbd);
int sbd_store_read(struct sbd_dev *sbd, sector_t sector, struct page *page,
		   unsigned int offset, unsigned int len);
int sbd_store_write(struct sbd_dev *sbd, sector_t sector, struct page *page,
		    unsigned int offset, unsigned int len, gfp_t gfp);
void sbd_store_discard(struct sbd_dev *sbd, sector_t sector, u64 len,
		       bool unmap);
void sbd_store_truncate(struct sbd_dev *sbd, u64 size);
void sbd_store_free(struct sbd_dev *sbd);

#endif /* SBD_H */
