// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The I/O of a disk, whatever carries it: the checks every operation goes
 * through, and the bio-based path (queue_mode=bio, the default), which
 * copies each bio at once in its submitter's context, as brd does, with no
 * request, tag or dispatch in between.  The blk-mq path is in sbd_mq.c.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>

#include "sbd.h"

/*
 * What every operation of @sectors at @sector checks first: an offline
 * disk fails all I/O; nothing may reach past the capacity (the block layer
 * checks a bio against its partition only, not against the disk); a
 * read-only disk takes no write, discard or write-zeroes.
 */
blk_status_t sbd_io_check(struct sbd_dev *sbd, struct gendisk *disk,
			  enum req_op op, sector_t sector, sector_t sectors)
{
	sector_t capacity = get_capacity(disk);

	if (READ_ONCE(sbd->offline))
		return BLK_STS_OFFLINE;
	if (sector > capacity || sectors > capacity - sector)
		return BLK_STS_IOERR;
	if (op_is_write(op) && READ_ONCE(sbd->read_only))
		return BLK_STS_IOERR;
	return BLK_STS_OK;
}

/*
 * Copy one segment.  -ENOMEM is left to the caller: blk-mq retries, the
 * bio path fails or, for REQ_NOWAIT, asks its submitter to try again.
 */
int sbd_io_segment(struct sbd_dev *sbd, bool write, sector_t sector,
		   struct bio_vec *bv, gfp_t gfp)
{
	if (write)
		return sbd_store_write(sbd, sector, bv->bv_page, bv->bv_offset,
				       bv->bv_len, gfp);
	return sbd_store_read(sbd, sector, bv->bv_page, bv->bv_offset,
			      bv->bv_len);
}

static blk_status_t sbd_bio_transfer(struct sbd_dev *sbd, struct bio *bio)
{
	bool nowait = bio->bi_opf & REQ_NOWAIT;
	bool write = op_is_write(bio_op(bio));
	sector_t sector = bio->bi_iter.bi_sector;
	struct bvec_iter iter;
	struct bio_vec bv;
	int ret;

	bio_for_each_segment(bv, bio, iter) {
		ret = sbd_io_segment(sbd, write, sector, &bv,
				     nowait ? GFP_NOWAIT : GFP_NOIO);
		if (ret == -ENOMEM)
			return nowait ? BLK_STS_AGAIN : BLK_STS_IOERR;
		if (ret)
			return errno_to_blk_status(ret);
		sector += bv.bv_len >> SECTOR_SHIFT;
	}
	return BLK_STS_OK;
}

static blk_status_t sbd_bio_do(struct sbd_dev *sbd, struct bio *bio)
{
	blk_status_t status;

	status = sbd_io_check(sbd, bio->bi_bdev->bd_disk, bio_op(bio),
			      bio->bi_iter.bi_sector, bio_sectors(bio));
	if (status)
		return status;

	switch (bio_op(bio)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		return sbd_bio_transfer(sbd, bio);
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		sbd_store_discard(sbd, bio->bi_iter.bi_sector,
				  bio->bi_iter.bi_size,
				  !(bio->bi_opf & REQ_NOUNMAP));
		return BLK_STS_OK;
	case REQ_OP_FLUSH:
		return BLK_STS_OK;
	default:
		return BLK_STS_NOTSUPP;
	}
}

/*
 * A bio-based disk gets its bios as their submitter made them: nothing cuts
 * a discard to max_discard_sectors (blk-mq does, for queue_mode=mq), and
 * blkdev_issue_discard() makes them up to 4 GiB, a million pages to free
 * in one loop.  Cut discard and write-zeroes to the queue limits, as
 * blk-mq would: the rest is submitted again, and comes back here after
 * this part.  Reads and writes are copied whatever their size, page by
 * page, and are left whole.
 */
static struct bio *sbd_bio_split(struct bio *bio)
{
	switch (bio_op(bio)) {
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		return bio_split_to_limits(bio);
	default:
		return bio;
	}
}

void sbd_submit_bio(struct bio *bio)
{
	struct gendisk *disk = bio->bi_bdev->bd_disk;
	bool stats = blk_queue_io_stat(disk->queue);
	unsigned long start = 0;

	/* NULL: the bio was ended with an error while being split. */
	bio = sbd_bio_split(bio);
	if (!bio)
		return;
	if (stats)
		start = bio_start_io_acct(bio);
	bio->bi_status = sbd_bio_do(disk->private_data, bio);
	if (stats)
		bio_end_io_acct(bio, start);
	bio_endio(bio);
}
