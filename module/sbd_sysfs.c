// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sysfs attributes of sbd: the driver's (version, ndevices, mem_used,
 * mem_max, new_device, delete_device) and every device's (name, device,
 * size, read_only, label, mem_used).
 * Every store parses exactly the bytes written (one trailing newline
 * allowed), validates before it changes anything and answers with the
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

/* Digits of the largest u64, 18446744073709551615. */
#define SBD_DIGITS_MAX	20

/*
 * Every store and parameter takes exactly the bytes written: the value, and
 * at most one newline after it (what echo adds).  This gives the length of
 * @buf's value without that newline; a NUL inside its @count bytes (the
 * parsers below would stop there and take "16M\0junk" for 16M) or an empty
 * value is -EINVAL.
 */
static int sbd_value_len(const char *buf, size_t count, size_t *len)
{
	if (strnlen(buf, count) != count)
		return -EINVAL;
	if (count && buf[count - 1] == '\n')
		count--;
	if (!count)
		return -EINVAL;
	*len = count;
	return 0;
}

/*
 * @len decimal digits and nothing else.  kstrtou64() alone would also take
 * a sign ("+5") and a newline after the digits (so "5\n\n" once echo's
 * newline is cut).  -EINVAL, or -ERANGE past 64 bits as kstrtou64() says.
 */
static int sbd_parse_digits(const char *s, size_t len, u64 *value)
{
	char num[SBD_DIGITS_MAX + 1];
	size_t i;

	if (!len)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!isdigit(s[i]))
			return -EINVAL;
	/* Leading zeros change nothing; more than 20 digits do not fit. */
	while (len > 1 && *s == '0') {
		s++;
		len--;
	}
	if (len > SBD_DIGITS_MAX)
		return -ERANGE;
	memcpy(num, s, len);
	num[len] = '\0';
	return kstrtou64(num, 10, value);
}

/* A number as a store or a parameter takes it: digits, one newline. */
int sbd_parse_u64(const char *buf, size_t count, u64 *value)
{
	size_t len;
	int ret;

	ret = sbd_value_len(buf, count, &len);
	if (ret)
		return ret;
	return sbd_parse_digits(buf, len, value);
}

/*
 * @len bytes of a size, with an optional K, M, G or T suffix (powers of
 * 1024): a non-zero multiple of 512, at most SBD_SIZE_CAP.  Every failure
 * is -EINVAL, overflow included: the API names EINVAL for a size over
 * the limit, and one past 64 bits is that.
 */
static int sbd_parse_bytes_token(const char *s, size_t len, u64 *bytes)
{
	unsigned int shift = 0;
	u64 value;

	if (!len)
		return -EINVAL;
	switch (s[len - 1]) {
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
		len--;
		break;
	}

	if (sbd_parse_digits(s, len, &value))
		return -EINVAL;
	if (shift && check_shl_overflow(value, shift, &value))
		return -EINVAL;
	if (!value || value % SECTOR_SIZE || value > SBD_SIZE_CAP)
		return -EINVAL;

	*bytes = value;
	return 0;
}

/* A size as a store or a parameter takes it: the size, one newline. */
int sbd_parse_bytes(const char *buf, size_t count, u64 *bytes)
{
	size_t len;
	int ret;

	ret = sbd_value_len(buf, count, &len);
	if (ret)
		return ret;
	return sbd_parse_bytes_token(buf, len, bytes);
}

/*
 * The capacity of a disk: a size as above, at most max_size, and no larger
 * than the memory budget (a disk that could never be filled).
 */
static int sbd_check_size(u64 size)
{
	return size > sbd_max_size || size > sbd_max_total ? -EINVAL : 0;
}

static int sbd_parse_size(const char *buf, size_t count, u64 *size)
{
	int ret = sbd_parse_bytes(buf, count, size);

	return ret ? ret : sbd_check_size(*size);
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

	ret = sbd_parse_size(buf, count, &size);
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

/*
 * The words kstrtobool() knows, each taken whole: kstrtobool() itself
 * looks at one or two characters, and would take "1junk" or "10" for 1.
 */
static const struct {
	const char *word;
	bool value;
} sbd_bool_words[] = {
	{ "0", false }, { "n", false }, { "no", false }, { "off", false },
	{ "1", true }, { "y", true }, { "yes", true }, { "on", true },
};

static int sbd_parse_bool(const char *buf, size_t count, bool *value)
{
	size_t len, i;
	int ret;

	ret = sbd_value_len(buf, count, &len);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(sbd_bool_words); i++) {
		if (strlen(sbd_bool_words[i].word) == len &&
		    !strncasecmp(buf, sbd_bool_words[i].word, len)) {
			*value = sbd_bool_words[i].value;
			return 0;
		}
	}
	return -EINVAL;
}

static ssize_t read_only_store(struct device *dev,
			       struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct sbd_dev *sbd = to_sbd_dev(dev);
	bool changed = false;
	bool ro;
	int ret;

	ret = sbd_parse_bool(buf, count, &ro);
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

	if (sbd_value_len(buf, count, len) || *len > SBD_LABEL_MAX)
		return -EINVAL;
	for (i = 0; i < *len; i++)
		if (!isascii(buf[i]) || !isprint(buf[i]))
			return -EINVAL;
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

/*
 * Bytes of data pages this disk holds; the disks' sum is the driver's
 * mem_used once the pages discarded have been freed (an RCU grace period
 * after the discard; until then the driver counts them, the disk not).  It
 * moves with every first write of a page, discard, write-zeroes, shrink and
 * delete, and announces none of it (a notification per written page would
 * cost the I/O path): read it when needed.
 */
static ssize_t dev_mem_used_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", sbd_store_dev_mem_used(to_sbd_dev(dev)));
}

static struct device_attribute dev_attr_mem_used =
	__ATTR(mem_used, 0444, dev_mem_used_show, NULL);

static struct attribute *sbd_dev_attrs[] = {
	&dev_attr_name.attr,
	&dev_attr_device.attr,
	&dev_attr_size.attr,
	&dev_attr_read_only.attr,
	&dev_attr_label.attr,
	&dev_attr_mem_used.attr,
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

/*
 * The memory budget: bytes of data pages the module holds (the disks' and
 * those discarded but not yet freed, waiting for an RCU grace period), and
 * the cap.  A write needing a page fails with ENOSPC once mem_used is at
 * mem_max.
 */
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

/*
 * Parse "SIZE" or "SIZE ID": a size as size_store() takes it, then one
 * space and an id, and at most one newline; no other space anywhere.
 */
static int sbd_parse_new_device(const char *buf, size_t count, u64 *size,
				int *id)
{
	const char *space;
	size_t len, size_len;
	u64 value;

	if (sbd_value_len(buf, count, &len))
		return -EINVAL;
	space = memchr(buf, ' ', len);
	size_len = space ? space - buf : len;
	if (sbd_parse_bytes_token(buf, size_len, size) || sbd_check_size(*size))
		return -EINVAL;

	*id = -1;
	if (space) {
		if (sbd_parse_digits(space + 1, len - size_len - 1, &value) ||
		    value > SBD_MAX_ID)
			return -EINVAL;
		*id = value;
	}
	return 0;
}

static ssize_t new_device_store(struct device_driver *drv, const char *buf,
				size_t count)
{
	u64 size;
	int id, ret;

	ret = sbd_parse_new_device(buf, count, &size, &id);
	if (ret)
		return ret;

	ret = sbd_registry_create(size, id);
	return ret < 0 ? ret : count;
}
static DRIVER_ATTR_WO(new_device);

/* Parse "sbdN" or "N", and at most one newline. */
static int sbd_parse_device_id(const char *buf, size_t count, u32 *id)
{
	size_t len, prefix = strlen(SBD_NAME);
	u64 value;

	if (sbd_value_len(buf, count, &len))
		return -EINVAL;
	if (len > prefix && !strncmp(buf, SBD_NAME, prefix)) {
		buf += prefix;
		len -= prefix;
	}
	if (sbd_parse_digits(buf, len, &value) || value > U32_MAX)
		return -EINVAL;
	*id = value;
	return 0;
}

static ssize_t delete_device_store(struct device_driver *drv, const char *buf,
				   size_t count)
{
	u32 id;
	int ret;

	ret = sbd_parse_device_id(buf, count, &id);
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
