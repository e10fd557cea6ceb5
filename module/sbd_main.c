// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sbd: the Simple Block Device.
 *
 * The article registered a sys_device on the "system" bus.  Today the same
 * shape is a bus of our own registered as a system subsystem, which puts
 * the devices below /sys/devices/system/sbd/ and gives us
 * /sys/bus/sbd/{devices,drivers}/.  The driver "sbd" binds to every device
 * on it and adds its gendisk with the device as parent.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "sbd.h"

/*
 * The counts: digits only, as every store takes them.  param_set_uint()
 * would take a sign ("+1"); past 32 bits is -ERANGE, as it says.
 */
static int sbd_param_set_count(const char *val, const struct kernel_param *kp)
{
	u64 value;
	int ret;

	ret = sbd_parse_u64(val, strlen(val), &value);
	if (ret)
		return ret;
	if (value > UINT_MAX)
		return -ERANGE;
	*(unsigned int *)kp->arg = value;
	return 0;
}

static const struct kernel_param_ops sbd_param_count_ops = {
	.set = sbd_param_set_count,
	.get = param_get_uint,
};

static unsigned int sbd_ndevices = 1;
module_param_cb(ndevices, &sbd_param_count_ops, &sbd_ndevices, 0444);
__MODULE_PARM_TYPE(ndevices, "uint");
MODULE_PARM_DESC(ndevices, "Number of disks to create at load time (default 1)");

/* queue_mode: "bio" (the default, the fastest) or "mq". */
static bool sbd_use_mq;

static int sbd_param_set_mode(const char *val, const struct kernel_param *kp)
{
	if (sysfs_streq(val, "bio"))
		sbd_use_mq = false;
	else if (sysfs_streq(val, "mq"))
		sbd_use_mq = true;
	else
		return -EINVAL;
	return 0;
}

static int sbd_param_get_mode(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", sbd_use_mq ? "mq" : "bio");
}

static const struct kernel_param_ops sbd_param_mode_ops = {
	.set = sbd_param_set_mode,
	.get = sbd_param_get_mode,
};

module_param_cb(queue_mode, &sbd_param_mode_ops, NULL, 0444);
MODULE_PARM_DESC(queue_mode, "bio: each bio copied as it is submitted (default, fastest); mq: blk-mq requests, with I/O schedulers and poll queues");

static unsigned int sbd_poll_queues;
module_param_cb(poll_queues, &sbd_param_count_ops, &sbd_poll_queues, 0444);
__MODULE_PARM_TYPE(poll_queues, "uint");
MODULE_PARM_DESC(poll_queues, "Hardware queues for polled I/O with queue_mode=mq, shared by all disks (default 0, at most one per CPU)");

static u64 sbd_default_size = 16ULL << 20;
u64 sbd_max_size = 1ULL << 30;
/* 0 until sbd_init() gives it its default: half of RAM, as tmpfs has. */
u64 sbd_max_total;

/*
 * Each size is checked on its own here, at most SBD_SIZE_CAP (refused, not
 * cut down: a value given explicitly that cannot be honoured is an error);
 * that the default size is within max_size is checked in sbd_init(), once
 * both are known.  The parameters are read-only once loaded, so this is
 * the only place a max_size or max_total comes in.
 */
static int sbd_param_set_size(const char *val, const struct kernel_param *kp)
{
	int ret = sbd_parse_bytes(val, strlen(val), kp->arg);

	if (ret)
		pr_err("%s=%s is not a size (a non-zero multiple of 512 of at most %llu bytes)\n",
		       kp->name, val, SBD_SIZE_CAP);
	return ret;
}

static const struct kernel_param_ops sbd_param_size_ops = {
	.set = sbd_param_set_size,
	.get = param_get_ullong,
};

module_param_cb(size, &sbd_param_size_ops, &sbd_default_size, 0444);
MODULE_PARM_DESC(size, "Capacity of each disk created at load time, in bytes with an optional K/M/G/T suffix (default 16M)");
module_param_cb(max_size, &sbd_param_size_ops, &sbd_max_size, 0444);
MODULE_PARM_DESC(max_size, "Largest capacity a disk may have (default 1G)");
module_param_cb(max_total, &sbd_param_size_ops, &sbd_max_total, 0444);
MODULE_PARM_DESC(max_total, "Bytes of data all disks together may hold (default half of RAM)");

static int sbd_uevent(SBD_UEVENT_DEV_CONST struct device *dev,
		      struct kobj_uevent_env *env)
{
	return add_uevent_var(env, "SBD_ID=%s", dev_name(dev) + strlen(SBD_NAME));
}

/* Both called with the device lock held (device_online/offline()). */
static int sbd_online(struct device *dev)
{
	sbd_disk_online(to_sbd_dev(dev));
	return 0;
}

/* An offline disk stays in place but fails all I/O. */
static int sbd_offline(struct device *dev)
{
	sbd_disk_offline(to_sbd_dev(dev));
	return 0;
}

/*
 * Every device matches the one driver.  That the driver core asked at all
 * is noted: it asks when it tries to bind a new device, which it does in
 * device_add() unless the bus's drivers_autoprobe is 0, and which creating
 * a disk then tells apart from a bind that failed before the probe (see
 * sbd_registry_create()).
 */
static int sbd_match(struct device *dev, SBD_MATCH_DRV_CONST struct device_driver *drv)
{
	WRITE_ONCE(to_sbd_dev(dev)->matched, true);
	return 1;
}

SBD_BUS_CONST struct bus_type sbd_bus = {
	.name		= SBD_NAME,
	.match		= sbd_match,
	.dev_groups	= sbd_dev_groups,
	.uevent		= sbd_uevent,
	.online		= sbd_online,
	.offline	= sbd_offline,
};

static int sbd_probe(struct device *dev)
{
	struct sbd_dev *sbd = to_sbd_dev(dev);

	sbd->probe_err = sbd_disk_add(sbd);
	return sbd->probe_err;
}

static int sbd_remove(struct device *dev)
{
	sbd_disk_remove(to_sbd_dev(dev));
	return 0;
}

static struct device_driver sbd_driver = {
	.name		= SBD_NAME,
	.bus		= &sbd_bus,
	.owner		= THIS_MODULE,
	.groups		= sbd_driver_groups,
	/*
	 * Creating a disk checks that its gendisk exists once device_add()
	 * returns; with driver_async_probe= or async_probe=1 the probe would
	 * run later, in a worker that may outlive the module.
	 */
	.probe_type	= PROBE_FORCE_SYNCHRONOUS,
	.probe		= sbd_probe,
	.remove		= sbd_remove,
	.pm		= pm_ptr(&sbd_pm_ops),
};

/*
 * The disks asked for at load time.  Once one exists, anybody (udev's
 * blkid first) may hold it open, and failing the init would free the
 * module under it: a later failure keeps the disks made so far and says
 * so.  Only a failure of the first one fails the load.
 */
static int __init sbd_create_initial(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < sbd_ndevices; i++) {
		ret = sbd_registry_create(sbd_default_size, -1);
		if (ret < 0 && !i)
			return ret;
		if (ret < 0) {
			pr_warn("made %u of the %u disks asked for: error %d\n",
				i, sbd_ndevices, ret);
			break;
		}
	}
	return 0;
}

static int __init sbd_init(void)
{
	int ret;

	if (!sbd_max_total)
		sbd_max_total = (u64)totalram_pages() << (PAGE_SHIFT - 1);
	if (sbd_max_total < PAGE_SIZE) {
		pr_err("max_total %llu is less than a page\n", sbd_max_total);
		return -EINVAL;
	}
	sbd_store_set_budget(sbd_max_total);
	if (sbd_default_size > sbd_max_size || sbd_default_size > sbd_max_total) {
		pr_err("size %llu is over max_size %llu or max_total %llu\n",
		       sbd_default_size, sbd_max_size, sbd_max_total);
		return -EINVAL;
	}
	if (sbd_ndevices > SBD_MAX_ID + 1)
		return -EINVAL;
	if (sbd_poll_queues > nr_cpu_ids) {
		pr_err("poll_queues %u is over the %u CPUs\n", sbd_poll_queues, nr_cpu_ids);
		return -EINVAL;
	}
	if (sbd_poll_queues && !sbd_use_mq) {
		pr_err("poll_queues needs queue_mode=mq\n");
		return -EINVAL;
	}

	ret = sbd_disk_init(sbd_use_mq, sbd_poll_queues);
	if (ret)
		return ret;

	ret = subsys_system_register(&sbd_bus, NULL);
	if (ret)
		goto err_disk;

	ret = driver_register(&sbd_driver);
	if (ret)
		goto err_bus;

	ret = sbd_registry_init();
	if (ret)
		goto err_driver;

	ret = sbd_create_initial();
	if (ret)
		goto err_registry;

	pr_info("version %s, major %d, %u disk(s)\n", SBD_VERSION, sbd_major,
		sbd_registry_count());
	return 0;

err_registry:
	sbd_registry_exit();
err_driver:
	driver_unregister(&sbd_driver);
err_bus:
	bus_unregister(&sbd_bus);
err_disk:
	sbd_disk_exit();
	return ret;
}

static void __exit sbd_exit(void)
{
	sbd_registry_exit();
	driver_unregister(&sbd_driver);
	bus_unregister(&sbd_bus);
	sbd_disk_exit();
	/*
	 * Pages discarded are freed, and their units given back to the
	 * budget, by RCU callbacks in this module's code.
	 */
	rcu_barrier();
}

module_init(sbd_init);
module_exit(sbd_exit);

MODULE_AUTHOR("The SBD developers");
MODULE_DESCRIPTION("Simple Block Device: RAM disks on their own system bus");
MODULE_LICENSE("GPL");
MODULE_VERSION(SBD_VERSION);
