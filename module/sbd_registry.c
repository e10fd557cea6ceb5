// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The set of sbd devices: created and deleted at run time through the
 * driver's new_device and delete_device attributes (as netdevsim does), kept
 * in one list under one mutex, with ids from an ida.  An "enabled" flag
 * refuses new devices once the module has started to unload.
 */
#include <linux/async.h>
#include <linux/idr.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "sbd.h"

static LIST_HEAD(sbd_devices);
static DEFINE_MUTEX(sbd_lock);	/* guards the three below */
static DEFINE_IDA(sbd_ida);
/* The deletions of an unload, waited for together (sbd_registry_exit()). */
static ASYNC_DOMAIN_EXCLUSIVE(sbd_exit_domain);
static unsigned int sbd_count;
static bool sbd_enabled;

/* The device's last reference is gone: free its data and its id. */
static void sbd_dev_release(struct device *dev)
{
	struct sbd_dev *sbd = to_sbd_dev(dev);

	sbd_store_free(sbd);
	ida_free(&sbd_ida, sbd->id);
	mutex_destroy(&sbd->lock);
	kfree(sbd);
}

/*
 * The id asked for, or the lowest free one.  The ida answers ENOSPC when
 * the id (or every id) is taken; new_device's errors name that EEXIST.
 */
static int sbd_alloc_id(int id)
{
	int ret;

	if (id < 0)
		ret = ida_alloc_max(&sbd_ida, SBD_MAX_ID, GFP_KERNEL);
	else
		ret = ida_alloc_range(&sbd_ida, id, id, GFP_KERNEL);
	return ret == -ENOSPC ? -EEXIST : ret;
}

static struct sbd_dev *sbd_find(u32 id)
{
	struct sbd_dev *sbd;

	lockdep_assert_held(&sbd_lock);
	list_for_each_entry(sbd, &sbd_devices, list)
		if (sbd->id == id)
			return sbd;
	return NULL;
}

/*
 * Whether the driver bound to @sbd, once device_add() has returned (the
 * probe is synchronous): 0 if it did, else why not.  The driver core says
 * nothing itself: bus_probe_device() drops the answer, and leaves the
 * device unbound in three cases told apart here.
 *  - The probe failed: its error, which sbd_probe() kept.
 *  - The bus's drivers_autoprobe is 0: the driver core never offered the
 *    device to the driver (sbd_match() did not run).  ENODEV, no driver
 *    bound, where ENOMEM used to be answered.
 *  - It offered it, but failed before the probe: in really_probe(), whose
 *    driver_sysfs_add() allocates the links between the device and the
 *    driver (the debug kernel's fail-nth sweep of new_device fails them).
 *    ENOMEM: the other failures there (pinctrl, DMA setup, power domain,
 *    suppliers) concern no device on this bus.
 */
static int sbd_bind_result(struct sbd_dev *sbd)
{
	if (sbd->disk)
		return 0;
	if (sbd->probe_err)
		return sbd->probe_err;
	return READ_ONCE(sbd->matched) ? -ENOMEM : -ENODEV;
}

/*
 * Create a disk of @size bytes with id @id, or the lowest free id if @id is
 * negative.  The driver binds to it during device_add(), which adds the
 * gendisk; a device left unbound (a failed probe, or none with
 * drivers_autoprobe 0) fails the whole creation and is deleted again.
 * Returns the id.
 */
int sbd_registry_create(u64 size, int id)
{
	struct sbd_dev *sbd;
	int ret;

	mutex_lock(&sbd_lock);
	if (!sbd_enabled) {
		ret = -ENODEV;
		goto out_unlock;
	}

	id = sbd_alloc_id(id);
	if (id < 0) {
		ret = id;
		goto out_unlock;
	}

	sbd = kzalloc(sizeof(*sbd), GFP_KERNEL);
	if (!sbd) {
		ida_free(&sbd_ida, id);
		ret = -ENOMEM;
		goto out_unlock;
	}
	sbd->id = id;
	sbd->size = size;
	snprintf(sbd->label, sizeof(sbd->label), SBD_NAME "%u", id);
	mutex_init(&sbd->lock);
	sbd_store_init(sbd);

	/* From here on, the release callback owns the freeing. */
	device_initialize(&sbd->dev);
	sbd->dev.bus = &sbd_bus;
	sbd->dev.release = sbd_dev_release;
	ret = dev_set_name(&sbd->dev, SBD_NAME "%u", id);
	if (ret)
		goto out_put;

	/* Counted before its add uevent, which a reader may react to. */
	WRITE_ONCE(sbd_count, sbd_count + 1);
	ret = device_add(&sbd->dev);
	if (ret)
		goto out_uncount;

	ret = sbd_bind_result(sbd);
	if (ret) {
		WRITE_ONCE(sbd_count, sbd_count - 1);
		device_unregister(&sbd->dev);
		goto out_unlock;
	}

	list_add_tail(&sbd->list, &sbd_devices);
	mutex_unlock(&sbd_lock);
	return id;

out_uncount:
	WRITE_ONCE(sbd_count, sbd_count - 1);
out_put:
	put_device(&sbd->dev);
out_unlock:
	mutex_unlock(&sbd_lock);
	return ret;
}

/*
 * Take @sbd out of the registry unless it is open: from then on it refuses
 * opens and nobody else can find it to delete it.  Called with sbd_lock
 * held; the caller unregisters the device.
 */
static int sbd_detach_locked(struct sbd_dev *sbd)
{
	lockdep_assert_held(&sbd_lock);

	mutex_lock(&sbd->lock);
	if (sbd->open_count) {
		mutex_unlock(&sbd->lock);
		return -EBUSY;
	}
	sbd->dying = true;
	mutex_unlock(&sbd->lock);

	list_del(&sbd->list);
	WRITE_ONCE(sbd_count, sbd_count - 1);
	return 0;
}

int sbd_registry_delete(u32 id)
{
	struct sbd_dev *sbd;
	int ret;

	mutex_lock(&sbd_lock);
	sbd = sbd_enabled ? sbd_find(id) : NULL;
	ret = sbd ? sbd_detach_locked(sbd) : -ENODEV;
	if (!ret)
		device_unregister(&sbd->dev);
	mutex_unlock(&sbd_lock);
	return ret;
}

unsigned int sbd_registry_count(void)
{
	return READ_ONCE(sbd_count);
}

int sbd_registry_init(void)
{
	mutex_lock(&sbd_lock);
	sbd_enabled = true;
	mutex_unlock(&sbd_lock);
	return 0;
}

/* One disk of the unload, deleted in an async worker (see below). */
static void sbd_unregister_async(void *data, async_cookie_t cookie)
{
	struct sbd_dev *sbd = data;

	device_unregister(&sbd->dev);
}

/*
 * Refuse new devices, then delete every one.  None can be open: an open
 * disk holds a reference on the module, so this never runs then.
 *
 * The disks are deleted side by side, not one after the other: each
 * del_gendisk() waits for a few RCU grace periods (freezing and quiescing
 * the queue, unregistering the bdi), and 10,000 disks deleted in turn took
 * minutes of waiting where side by side they share the grace periods.
 * The deletions touch no registry state (the list is emptied here first),
 * and every one has finished before this returns.
 */
void sbd_registry_exit(void)
{
	struct sbd_dev *sbd, *next;

	mutex_lock(&sbd_lock);
	sbd_enabled = false;
	list_for_each_entry_safe(sbd, next, &sbd_devices, list)
		if (!WARN_ON(sbd_detach_locked(sbd)))
			async_schedule_domain(sbd_unregister_async, sbd,
					      &sbd_exit_domain);
	mutex_unlock(&sbd_lock);
	async_synchronize_full_domain(&sbd_exit_domain);
	ida_destroy(&sbd_ida);
}
