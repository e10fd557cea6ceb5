// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The data of a disk: pages kept in an xarray indexed by page number and
 * allocated on first write, as brd does, so that a large disk that was never
 * written costs nothing.  Reading a page that was never written gives zeros.
 */
#include <linux/blkdev.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/atomic.h>
#include <linux/rcupdate.h>
#include <linux/xarray.h>

#include "sbd.h"

/*
 * The memory budget: pages all disks together may hold (max_total), and how
 * many the module holds (sbd_pages_used, the driver's mem_used).  A page is
 * counted as it is stored (sbd_store_add_page()), so that racing writers
 * can never overshoot the budget, and uncounted only once it is really
 * freed: a discarded page stays counted until the RCU callback that frees
 * it has run (sbd_free_page_rcu()), so that pages waiting for their grace
 * period and pages held never exceed the budget together.  Each disk counts
 * its own pages too (nr_pages, the disk's mem_used), beside the same
 * changes of the budget; a discarded page leaves its disk's count at once.
 */
static unsigned long sbd_pages_max;

/* Pages freed between two cond_resched() calls. */
#define SBD_FREE_BATCH	1024

static atomic_long_t sbd_pages_used = ATOMIC_LONG_INIT(0);

void sbd_store_set_budget(u64 max_total)
{
	sbd_pages_max = max_total >> PAGE_SHIFT;
}

u64 sbd_store_mem_used(void)
{
	return (u64)atomic_long_read(&sbd_pages_used) << PAGE_SHIFT;
}

u64 sbd_store_mem_max(void)
{
	return (u64)sbd_pages_max << PAGE_SHIFT;
}

static bool sbd_budget_take(void)
{
	if (atomic_long_inc_return(&sbd_pages_used) <= sbd_pages_max)
		return true;
	atomic_long_dec(&sbd_pages_used);
	return false;
}

/* Whether a unit is left now: a hint, sbd_budget_take() decides. */
static bool sbd_budget_room(void)
{
	return atomic_long_read(&sbd_pages_used) < sbd_pages_max;
}

static void sbd_budget_give(unsigned long pages)
{
	atomic_long_sub(pages, &sbd_pages_used);
}

/* @sbd freed @pages pages: the disk's count and the budget go down. */
static void sbd_store_give(struct sbd_dev *sbd, unsigned long pages)
{
	atomic_long_sub(pages, &sbd->nr_pages);
	sbd_budget_give(pages);
}

/* Bytes of data pages @sbd holds (the disk's mem_used). */
u64 sbd_store_dev_mem_used(struct sbd_dev *sbd)
{
	return (u64)atomic_long_read(&sbd->nr_pages) << PAGE_SHIFT;
}

void sbd_store_init(struct sbd_dev *sbd)
{
	xa_init(&sbd->pages);
	atomic_long_set(&sbd->nr_pages, 0);
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
 * Make sure the page @index exists: 0, or -ENOSPC when the budget is spent,
 * -ENOMEM when no page could be had.  @gfp is GFP_NOWAIT from
 * ->queue_rq(), which must not sleep (the queue is not BLK_MQ_F_BLOCKING:
 * quiescing it then needs only RCU, not the tag set's SRCU), and GFP_NOIO
 * from the bio path, which may.
 *
 * The page is charged to the budget only where it is stored, under the
 * xarray's lock and after a last look at the slot: a writer that finds the
 * page made meanwhile by another needs no unit, so two writers racing for
 * the same missing page with one unit left both succeed.  The unit is
 * taken just before the store and given back if the store failed, so that
 * the budget never counts more pages than are held, nor holds one for a
 * writer that went away to allocate xarray nodes (xas_nomem(), outside the
 * lock).  A new page is allocated before the lock (uncharged, freed again
 * if unused), unless the budget is already spent: then only the last look
 * is left to do.
 */
static int sbd_store_add_page(struct sbd_dev *sbd, pgoff_t index, gfp_t gfp)
{
	XA_STATE(xas, &sbd->pages, index);
	struct page *page = NULL;
	int ret;

	if (sbd_budget_room()) {
		page = alloc_page(gfp | __GFP_NOWARN | __GFP_ZERO |
				  __GFP_HIGHMEM);
		if (!page)
			return -ENOMEM;
	}
	do {
		xas_lock(&xas);
		if (xas_load(&xas)) {
			ret = 0;
		} else if (!page || !sbd_budget_take()) {
			ret = -ENOSPC;
		} else {
			xas_store(&xas, page);
			ret = xas_error(&xas);
			if (ret) {
				sbd_budget_give(1);
			} else {
				atomic_long_inc(&sbd->nr_pages);
				page = NULL;
			}
		}
		xas_unlock(&xas);
	} while (xas_nomem(&xas, gfp | __GFP_NOWARN));

	if (page)
		__free_page(page);
	return ret;
}

/* Copy @len bytes at @sector into @page + @offset. */
int sbd_store_read(struct sbd_dev *sbd, sector_t sector, struct page *page,
		   unsigned int offset, unsigned int len)
{
	while (len) {
		unsigned int pos = sbd_page_offset(sector);
		unsigned int chunk = min_t(unsigned int, len, PAGE_SIZE - pos);
		struct page *src;

		rcu_read_lock();
		src = xa_load(&sbd->pages, sbd_page_index(sector));
		if (src) {
			void *from = kmap_local_page(src);

			memcpy_to_page(page, offset, from + pos, chunk);
			kunmap_local(from);
		} else {
			memzero_page(page, offset, chunk);
		}
		rcu_read_unlock();
		offset += chunk;
		len -= chunk;
		sector += chunk >> SECTOR_SHIFT;
	}
	return 0;
}

/*
 * Copy @len bytes from @page + @offset to @sector, allocating pages with
 * @gfp.  A page is looked up and written inside rcu_read_lock(), so that a
 * discard beside it cannot free it meanwhile; a missing one is added
 * outside (the allocation may sleep) and looked up again.
 */
int sbd_store_write(struct sbd_dev *sbd, sector_t sector, struct page *page,
		    unsigned int offset, unsigned int len, gfp_t gfp)
{
	while (len) {
		unsigned int pos = sbd_page_offset(sector);
		unsigned int chunk = min_t(unsigned int, len, PAGE_SIZE - pos);
		pgoff_t index = sbd_page_index(sector);
		struct page *dst;
		void *to;
		int ret;

		rcu_read_lock();
		dst = xa_load(&sbd->pages, index);
		if (!dst) {
			rcu_read_unlock();
			ret = sbd_store_add_page(sbd, index, gfp);
			if (ret)
				return ret;
			continue;
		}
		to = kmap_local_page(dst);
		memcpy_from_page(to + pos, page, offset, chunk);
		kunmap_local(to);
		rcu_read_unlock();
		offset += chunk;
		len -= chunk;
		sector += chunk >> SECTOR_SHIFT;
	}
	return 0;
}

/*
 * A discarded page's grace period has ended: free it, and only now give its
 * unit back to the budget.  The module's exit waits for these callbacks
 * (rcu_barrier()) before the budget's counter goes with the module.
 */
static void sbd_free_page_rcu(struct rcu_head *head)
{
	__free_page(container_of(head, struct page, rcu_head));
	sbd_budget_give(1);
}

/* Zero @len bytes at @pos of the page @index, if it exists. */
static void sbd_store_zero_part(struct sbd_dev *sbd, pgoff_t index,
				unsigned int pos, unsigned int len)
{
	struct page *page;

	rcu_read_lock();
	page = xa_load(&sbd->pages, index);
	if (page)
		memzero_page(page, pos, len);
	rcu_read_unlock();
}

/*
 * Discard or zero @len bytes at @sector: with @unmap the whole pages inside
 * the range go back to the system and the budget, the parts of pages at its
 * ends are zeroed; without it (a write-zeroes with REQ_NOUNMAP: BLKZEROOUT,
 * fallocate's ZERO_RANGE) every page the range holds is zeroed and kept,
 * with its place in the budget, as the caller asked the space to stay
 * allocated.  Either way the range reads as zeros.  I/O may run beside it,
 * so a page is freed only after an RCU grace period: readers and writers
 * look pages up and copy inside rcu_read_lock().  The disk's count drops
 * at once; the budget's only as each page is freed (sbd_free_page_rcu()),
 * so that a write right after a discard may meet ENOSPC for that moment
 * rather than allocate a page the budget has no room for.
 */
void sbd_store_discard(struct sbd_dev *sbd, sector_t sector, u64 len,
		       bool unmap)
{
	struct page *page;

	while (len) {
		unsigned int pos = sbd_page_offset(sector);
		unsigned int chunk = min_t(u64, len, PAGE_SIZE - pos);
		pgoff_t index = sbd_page_index(sector);

		if (chunk < PAGE_SIZE || !unmap) {
			sbd_store_zero_part(sbd, index, pos, chunk);
		} else {
			page = xa_erase(&sbd->pages, index);
			if (page) {
				/* Before the callback can give the unit back. */
				atomic_long_dec(&sbd->nr_pages);
				call_rcu(&page->rcu_head, sbd_free_page_rcu);
			}
		}
		len -= chunk;
		sector += chunk >> SECTOR_SHIFT;
	}
}

/*
 * Drop the data beyond @size, so that growing the disk again shows zeros
 * there rather than what was written before it shrank.  The caller makes
 * sure no I/O is in flight.
 */
void sbd_store_truncate(struct sbd_dev *sbd, u64 size)
{
	unsigned int tail = offset_in_page(size);
	/*
	 * Not DIV_ROUND_UP(): its size + PAGE_SIZE - 1 wraps within a page
	 * of 2^64, and the first page gone would be 0, all the data.
	 */
	pgoff_t first_gone = (size >> PAGE_SHIFT) + !!tail;
	unsigned long index, freed = 0;
	struct page *page;

	if (tail) {
		page = xa_load(&sbd->pages, size >> PAGE_SHIFT);
		if (page)
			memzero_page(page, tail, PAGE_SIZE - tail);
	}

	xa_for_each_start(&sbd->pages, index, page, first_gone) {
		xa_erase(&sbd->pages, index);
		__free_page(page);
		/* A large disk has millions of pages: let others run. */
		if (!(++freed % SBD_FREE_BATCH))
			cond_resched();
	}
	sbd_store_give(sbd, freed);
}

void sbd_store_free(struct sbd_dev *sbd)
{
	sbd_store_truncate(sbd, 0);
	xa_destroy(&sbd->pages);
}
