// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The data of a disk: pages kept in an xarray indexed by page number and
 * allocated on first write, as brd does, so that a large disk that was never
 * written costs nothing.  Reading a page that was never written gives zeros.
 */
#include <linux/blkdev.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/xarray.h>

#include "sbd.h"

void sbd_store_init(struct sbd_dev *sbd)
{
	xa_init(&sbd->pages);
}

static pgoff_t sbd_page_index(sector_t sector)
{
	return sector >> PAGE_SECTORS_SHIFT;
}

static unsigned int sbd_page_offset(sector_t sector)
{
	return (sector & (PAGE_SECTORS - 1)) << SECTOR_SHIFT;
}

/*
 * Return the page holding @sector, allocating it if needed.  Two writers
 * racing for the same new page both allocate; xa_cmpxchg() keeps the first
 * and the loser frees its own.  Called from ->queue_rq(), which must not
 * sleep (the queue is not BLK_MQ_F_BLOCKING: quiescing it then needs only
 * RCU, not the tag set's SRCU), so the allocation does not wait: under
 * memory pressure it fails and the request is retried by blk-mq.
 */
static struct page *sbd_store_get_page(struct sbd_dev *sbd, pgoff_t index)
{
	struct page *page, *cur;

	page = xa_load(&sbd->pages, index);
	if (page)
		return page;

	page = alloc_page(GFP_NOWAIT | __GFP_NOWARN | __GFP_ZERO | __GFP_HIGHMEM);
	if (!page)
		return NULL;

	cur = xa_cmpxchg(&sbd->pages, index, NULL, page, GFP_NOWAIT | __GFP_NOWARN);
	if (!cur)
		return page;

	__free_page(page);
	return xa_is_err(cur) ? NULL : cur;
}

/* Copy @len bytes at @sector into @page + @offset. */
int sbd_store_read(struct sbd_dev *sbd, sector_t sector, struct page *page,
		   unsigned int offset, unsigned int len)
{
	while (len) {
		unsigned int pos = sbd_page_offset(sector);
		unsigned int chunk = min_t(unsigned int, len, PAGE_SIZE - pos);
		struct page *src = xa_load(&sbd->pages, sbd_page_index(sector));

		if (src) {
			void *from = kmap_local_page(src);

			memcpy_to_page(page, offset, from + pos, chunk);
			kunmap_local(from);
		} else {
			memzero_page(page, offset, chunk);
		}
		offset += chunk;
		len -= chunk;
		sector += chunk >> SECTOR_SHIFT;
	}
	return 0;
}

/* Copy @len bytes from @page + @offset to @sector. */
int sbd_store_write(struct sbd_dev *sbd, sector_t sector, struct page *page,
		    unsigned int offset, unsigned int len)
{
	while (len) {
		unsigned int pos = sbd_page_offset(sector);
		unsigned int chunk = min_t(unsigned int, len, PAGE_SIZE - pos);
		struct page *dst = sbd_store_get_page(sbd, sbd_page_index(sector));
		void *to;

		if (!dst)
			return -ENOMEM;
		to = kmap_local_page(dst);
		memcpy_from_page(to + pos, page, offset, chunk);
		kunmap_local(to);
		offset += chunk;
		len -= chunk;
		sector += chunk >> SECTOR_SHIFT;
	}
	return 0;
}

/*
 * Drop the data beyond @size, so that growing the disk again shows zeros
 * there rather than what was written before it shrank.  The caller makes
 * sure no I/O is in flight.
 */
void sbd_store_truncate(struct sbd_dev *sbd, u64 size)
{
	pgoff_t first_gone = DIV_ROUND_UP_ULL(size, PAGE_SIZE);
	unsigned int tail = offset_in_page(size);
	struct page *page;
	unsigned long index;

	if (tail) {
		page = xa_load(&sbd->pages, size >> PAGE_SHIFT);
		if (page)
			memzero_page(page, tail, PAGE_SIZE - tail);
	}

	xa_for_each_start(&sbd->pages, index, page, first_gone) {
		xa_erase(&sbd->pages, index);
		__free_page(page);
	}
}

void sbd_store_free(struct sbd_dev *sbd)
{
	sbd_store_truncate(sbd, 0);
	xa_destroy(&sbd->pages);
}
