// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sysfs attributes of sbd: the driver's (version, ndevices, new_device,
 * delete_device) and every device's (name, device, size, read_only, label).
 * Every store validates before it changes anything and answers with the
 * errno the contract names; every change is announced with sysfs_notify()
 * and a KOBJ_CHANGE uevent carrying SBD_CHANGED=<attribute>.
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "sbd.h"

/* Longest token a size or an id can be: 20 digits and a suffix. */
#define SBD_TOKEN_MAX	24

/*
 * Parse a size in bytes, with an optional K, M, G or T suffix (powers of
 * 1024): a non-zero multiple of 512 that fits in 64 bits.
 */
int sbd_parse_bytes(const char *buf, u64 *bytes)
{
	char num[SBD_TOKEN_MAX + 1];
	unsigned int shift = 0;
	size_t len;
	u64 value;

	len = strlen(buf);
	if (len && buf[len - 1] == '\n')
		len--;
	if (!len || len > SBD_TOKEN_MAX)
		return -EINVAL;
	memcpy(num, buf, len);
	num[len] = '\0';

	switch (num[len - 1]) {
	case 'T': case 't':
		shift += 10;
		fallthrough;
	case 'G': case 'g':
		shift += 10;
		fallthrough;
	case 'M': case 'm':
		shift += 10;
		fallthrough;
	case 'K': case 'k':
		shift += 10;
		num[--len] = '\0';
		break;
	}

	/* kstrtou64() would take a sign; a size has none. */
	if (!len || !isdigit(num[0]) || kstrtou64(num, 10, &value))
		return -EINVAL;
	if (shift && check_shl_overflow(value, shift, &value))
		return -EINVAL;
	if (!value || value % SECTOR_SIZE)
		return -EINVAL;

	*bytes = value;
	return 0;
}

/*
 * Parse the capacity of a disk: a size as above, at most max_size, and no
 * larger than the memory budget (a disk that could never be filled).
 */
int sbd_parse_size(const char *buf, u64 *size)
{
	int ret = sbd_parse_bytes(buf, size);

	if (ret)
		return ret;
	return *size > sbd_max_size || *size > sbd_max_total ? -EINVAL : 0;
}

/*
 * The parsers read a store's buffer as a C string: refuse a value with a
 * NUL inside its @count bytes ("16M\0junk"), which they would cut short.
 */
static int sbd_check_text(const char *buf, size_t count)
{
	return strnlen(buf, count) == count ? 0 : -EINVAL;
}

void sbd_notify_change(struct sbd_dev *sbd, const char *attr)
{
	char changed[32];
	char *envp[2];

	envp[0] = changed;
	envp[1] = NULL;
	snprintf(changed, sizeof(changed), "SBD_CHANGED=%s", attr);
	sysfs_notify(&sbd->dev.kobj, NULL, attr);
	kobject_uevent_env(&sbd->dev.kobj, KOBJ_CHANGE, envp);
}

/* --- device attributes -------------------------------------------------- */

static ssize_t name_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", SBD_DEVICE_NAME);
}
static DEVICE_ATTR_RO(name);

/* The article's device number: the block major, printed as "%02x00". */
static ssize_t device_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%02x00\n", sbd_major);
}
static DEVICE_ATTR_RO(device);

static ssize_t size_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct sbd_dev *sbd = to_sbd_dev(dev);
	u64 size;

	mutex_lock(&sbd->lock);
	size = sbd->size;
	mutex_unlock(&sbd->lock);
	return sysfs_emit(buf, "%llu\n", size);
}

static ssize_t size_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct sbd_dev *sbd = to_sbd_dev(dev);
	u64 size;
	int ret;

	ret = sbd_check_text(buf, count);
	if (!ret)
		ret = sbd_parse_size(buf, &size);
	if (ret)
		return ret;

	device_lock(dev);
	ret = sbd_disk_set_size(sbd, size);
	device_unlock(dev);

	if (ret > 0)
		sbd_notify_change(sbd, "size");
	return ret < 0 ? ret : count;
}
static DEVICE_ATTR_RW(size);

static ssize_t read_only_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct sbd_dev *sbd = to_sbd_dev(dev);

	return sysfs_emit(buf, "%d\n", READ_ONCE(sbd->read_only));
}

static ssize_t read_only_store(struct device *dev,
			       struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct sbd_dev *sbd = to_sbd_dev(dev);
	bool changed = false;
	bool ro;
	int ret;

	ret = kstrtobool(buf, &ro);
	if (ret)
		return ret;

	mutex_lock(&sbd->lock);
	if (ro != sbd->read_only) {
		WRITE_ONCE(sbd->read_only, ro);
		/* Sends the block layer's own DISK_RO uevent on the disk. */
		if (sbd->disk)
			set_disk_ro(sbd->disk, ro);
		changed = true;
	}
	mutex_unlock(&sbd->lock);

	if (changed)
		sbd_notify_change(sbd, "read_only");
	return count;
}
static DEVICE_ATTR_RW(read_only);

static ssize_t label_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct sbd_dev *sbd = to_sbd_dev(dev);
	ssize_t ret;

	mutex_lock(&sbd->lock);
	ret = sysfs_emit(buf, "%s\n", sbd->label);
	mutex_unlock(&sbd->lock);
	return ret;
}

/*
 * A label is 1 to SBD_LABEL_MAX printable ASCII characters; one newline may
 * end it.  The kernel's isprint() also takes Latin-1's upper half, which
 * would make labels that are not valid UTF-8 for userspace (and D-Bus).
 */
static int sbd_parse_label(const char *buf, size_t count, size_t *len)
{
	size_t i;

	if (count && buf[count - 1] == '\n')
		count--;
	if (!count || count > SBD_LABEL_MAX)
		return -EINVAL;
	for (i = 0; i < count; i++)
		if (!isascii(buf[i]) || !isprint(buf[i]))
			return -EINVAL;
	*len = count;
	return 0;
}

static ssize_t label_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	struct sbd_dev *sbd = to_sbd_dev(dev);
	bool changed = false;
	size_t len;
	int ret;

	ret = sbd_parse_label(buf, count, &len);
	if (ret)
		return ret;

	mutex_lock(&sbd->lock);
	if (strlen(sbd->label) != len || memcmp(sbd->label, buf, len)) {
		memcpy(sbd->label, buf, len);
		sbd->label[len] = '\0';
		changed = true;
	}
	mutex_unlock(&sbd->lock);

	if (changed)
		sbd_notify_change(sbd, "label");
	return count;
}
static DEVICE_ATTR_RW(label);

static struct attribute *sbd_dev_attrs[] = {
	&dev_attr_name.attr,
	&dev_attr_device.attr,
	&dev_attr_size.attr,
	&dev_attr_read_only.attr,
	&dev_attr_label.attr,
	NULL,
};

static const struct attribute_group sbd_dev_group = {
	.attrs = sbd_dev_attrs,
};

const struct attribute_group *sbd_dev_groups[] = {
	&sbd_dev_group,
	NULL,
};

/* --- driver attributes -------------------------------------------------- */

static ssize_t version_show(struct device_driver *drv, char *buf)
{
	return sysfs_emit(buf, "%s\n", SBD_VERSION);
}
static DRIVER_ATTR_RO(version);

static ssize_t ndevices_show(struct device_driver *drv, char *buf)
{
	return sysfs_emit(buf, "%u\n", sbd_registry_count());
}
static DRIVER_ATTR_RO(ndevices);

/* The memory budget: bytes of data pages held by all disks, and the cap. */
static ssize_t mem_used_show(struct device_driver *drv, char *buf)
{
	return sysfs_emit(buf, "%llu\n", sbd_store_mem_used());
}
static DRIVER_ATTR_RO(mem_used);

static ssize_t mem_max_show(struct device_driver *drv, char *buf)
{
	return sysfs_emit(buf, "%llu\n", sbd_store_mem_max());
}
static DRIVER_ATTR_RO(mem_max);

/* Parse "SIZE [ID]": a size as sbd_parse_size() takes it, an optional id. */
static int sbd_parse_new_device(const char *buf, u64 *size, int *id)
{
	char *copy, *cursor, *size_tok, *id_tok;
	unsigned int value;
	int ret = -EINVAL;

	copy = kstrndup(buf, PAGE_SIZE, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;

	cursor = strim(copy);
	size_tok = strsep(&cursor, " \t");
	id_tok = cursor ? skip_spaces(cursor) : NULL;
	if (id_tok && !*id_tok)
		id_tok = NULL;

	if (sbd_parse_size(size_tok, size))
		goto out;

	*id = -1;
	if (id_tok) {
		if (!isdigit(id_tok[0]) || kstrtouint(id_tok, 10, &value) ||
		    value > SBD_MAX_ID)
			goto out;
		*id = value;
	}
	ret = 0;
out:
	kfree(copy);
	return ret;
}

static ssize_t new_device_store(struct device_driver *drv, const char *buf,
				size_t count)
{
	u64 size;
	int id, ret;

	ret = sbd_check_text(buf, count);
	if (!ret)
		ret = sbd_parse_new_device(buf, &size, &id);
	if (ret)
		return ret;

	ret = sbd_registry_create(size, id);
	return ret < 0 ? ret : count;
}
static DRIVER_ATTR_WO(new_device);

/* Parse "sbdN" or "N". */
static int sbd_parse_device_id(const char *buf, u32 *id)
{
	char name[SBD_TOKEN_MAX + 1];
	const char *num = name;
	size_t len = strlen(buf);

	if (len && buf[len - 1] == '\n')
		len--;
	if (!len || len > SBD_TOKEN_MAX)
		return -EINVAL;
	memcpy(name, buf, len);
	name[len] = '\0';

	if (!strncmp(name, SBD_NAME, strlen(SBD_NAME)))
		num += strlen(SBD_NAME);
	if (!isdigit(num[0]) || kstrtou32(num, 10, id))
		return -EINVAL;
	return 0;
}

static ssize_t delete_device_store(struct device_driver *drv, const char *buf,
				   size_t count)
{
	u32 id;
	int ret;

	ret = sbd_check_text(buf, count);
	if (!ret)
		ret = sbd_parse_device_id(buf, &id);
	if (ret)
		return ret;

	ret = sbd_registry_delete(id);
	return ret ? ret : count;
}
static DRIVER_ATTR_WO(delete_device);

static struct attribute *sbd_driver_attrs[] = {
	&driver_attr_version.attr,
	&driver_attr_ndevices.attr,
	&driver_attr_mem_used.attr,
	&driver_attr_mem_max.attr,
	&driver_attr_new_device.attr,
	&driver_attr_delete_device.attr,
	NULL,
};

static const struct attribute_group sbd_driver_group = {
	.attrs = sbd_driver_attrs,
};

const struct attribute_group *sbd_driver_groups[] = {
	&sbd_driver_group,
	NULL,
};
