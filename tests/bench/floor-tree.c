/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The floor's copy of sbdd's object tree: read once with GetManagedObjects,
 * kept as typed values, served back through one fallback vtable per
 * interface and a node enumerator: the least sd-bus work for the same
 * objects and values.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "floor-tree.h"

static int value_read(sd_bus_message *m, struct floor_value *v)
{
	const char *contents;
	char type;
	int r;

	r = sd_bus_message_peek_type(m, &type, &contents);
	if (r <= 0)
		return r < 0 ? r : -EBADMSG;
	r = sd_bus_message_enter_container(m, 'v', contents);
	if (r < 0)
		return r;
	v->signature = strdup(contents);
	if (!v->signature)
		return -ENOMEM;

	if (strcmp(contents, "s") == 0 || strcmp(contents, "o") == 0) {
		const char *s;

		r = sd_bus_message_read_basic(m, contents[0], &s);
		if (r >= 0 && !(v->str = strdup(s)))
			r = -ENOMEM;
	} else if (strcmp(contents, "t") == 0) {
		r = sd_bus_message_read_basic(m, 't', &v->u64);
	} else if (strcmp(contents, "u") == 0) {
		r = sd_bus_message_read_basic(m, 'u', &v->u32);
	} else if (strcmp(contents, "b") == 0) {
		r = sd_bus_message_read_basic(m, 'b', &v->boolean);
	} else if (strcmp(contents, "ao") == 0 || strcmp(contents, "as") == 0) {
		r = sd_bus_message_read_strv(m, &v->strv);
	} else if (strcmp(contents, "a{ss}") == 0) {
		const char *key, *value;
		size_t n = 0;

		r = sd_bus_message_enter_container(m, 'a', "{ss}");
		while (r >= 0 && (r = sd_bus_message_read(m, "{ss}", &key, &value)) > 0) {
			char **strv = realloc(v->strv, (n + 3) * sizeof(char *));

			if (!strv)
				return -ENOMEM;
			v->strv = strv;
			v->strv[n++] = strdup(key);
			v->strv[n++] = strdup(value);
			v->strv[n] = NULL;
		}
		if (r >= 0)
			r = sd_bus_message_exit_container(m);
	} else {
		return -EOPNOTSUPP;
	}
	if (r < 0)
		return r;
	return sd_bus_message_exit_container(m);
}

static void value_clear(struct floor_value *v)
{
	if (!v->signature)
		return;
	if (v->signature[0] == 's' || v->signature[0] == 'o') {
		free(v->str);
	} else if (v->signature[0] == 'a' && v->strv) {
		for (char **s = v->strv; *s; s++)
			free(*s);
		free(v->strv);
	}
	free(v->signature);
	memset(v, 0, sizeof(*v));
}

static int value_append(sd_bus_message *reply, const struct floor_value *v)
{
	int r;

	switch (v->signature[0]) {
	case 's':
	case 'o':
		return sd_bus_message_append_basic(reply, v->signature[0], v->str);
	case 't':
		return sd_bus_message_append_basic(reply, 't', &v->u64);
	case 'u':
		return sd_bus_message_append_basic(reply, 'u', &v->u32);
	case 'b':
		return sd_bus_message_append_basic(reply, 'b', &v->boolean);
	}
	/* "as", "ao" (sd_bus_message_append_strv() would say "as"), "a{ss}" */
	r = sd_bus_message_open_container(reply, 'a', v->signature + 1);
	if (strcmp(v->signature, "a{ss}") == 0)
		for (char **s = v->strv; r >= 0 && s && s[0] && s[1]; s += 2)
			r = sd_bus_message_append(reply, "{ss}", s[0], s[1]);
	else
		for (char **s = v->strv; r >= 0 && s && *s; s++)
			r = sd_bus_message_append_basic(reply, v->signature[1], *s);
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int property_get(sd_bus *bus, const char *path, const char *interface,
			const char *property, sd_bus_message *reply,
			void *userdata, sd_bus_error *error)
{
	return value_append(reply, userdata);
}

static int object_compare(const void *a, const void *b)
{
	return strcmp(((const struct floor_object *)a)->path,
		      ((const struct floor_object *)b)->path);
}

static struct floor_object *tree_find(struct floor_tree *tree, const char *path)
{
	struct floor_object key = { .path = (char *)path };

	return bsearch(&key, tree->objects, tree->n_objects, sizeof(key),
		       object_compare);
}

static int tree_find_interface(struct floor_tree *tree, const char *name)
{
	for (unsigned int i = 0; i < tree->n_interfaces; i++)
		if (strcmp(tree->interfaces[i].name, name) == 0)
			return i;
	return -ENOENT;
}

static int object_find(sd_bus *bus, const char *path, const char *interface,
		       void *userdata, void **found, sd_bus_error *error)
{
	struct floor_tree *tree = userdata;
	struct floor_object *object = tree_find(tree, path);
	int i = tree_find_interface(tree, interface);

	if (!object || i < 0 || !object->values[i])
		return 0;
	*found = object->values[i];
	return 1;
}

static int enumerate(sd_bus *bus, const char *prefix, void *userdata,
		     char ***nodes, sd_bus_error *error)
{
	struct floor_tree *tree = userdata;
	char **list = calloc(tree->n_objects + 1, sizeof(char *));

	if (!list)
		return -ENOMEM;
	for (unsigned int i = 0; i < tree->n_objects; i++)
		if (!(list[i] = strdup(tree->objects[i].path)))
			return -ENOMEM;
	*nodes = list;
	return 0;
}

int floor_tree_register(struct floor_tree *tree, sd_bus *bus)
{
	int r = sd_bus_add_object_manager(bus, NULL, FLOOR_TREE_ROOT);

	if (r < 0)
		return r;
	return sd_bus_add_node_enumerator(bus, NULL, FLOOR_TREE_ROOT, enumerate, tree);
}

/* Find or add interface @name and property @property in it; returns its index. */
static int schema_add(struct floor_tree *tree, const char *name,
		      const char *property, const char *signature, unsigned int *index)
{
	struct floor_interface *iface;
	int i = tree_find_interface(tree, name);

	if (i < 0) {
		if (tree->n_interfaces == FLOOR_MAX_INTERFACES)
			return -E2BIG;
		i = tree->n_interfaces++;
		tree->interfaces[i].name = strdup(name);
	}
	iface = &tree->interfaces[i];
	for (unsigned int p = 0; p < iface->n_properties; p++)
		if (strcmp(iface->property_names[p], property) == 0) {
			*index = p;
			return i;
		}
	iface->property_names = realloc(iface->property_names,
					(iface->n_properties + 1) * sizeof(char *));
	iface->property_signatures = realloc(iface->property_signatures,
					     (iface->n_properties + 1) * sizeof(char *));
	if (!iface->property_names || !iface->property_signatures)
		return -ENOMEM;
	iface->property_names[iface->n_properties] = strdup(property);
	iface->property_signatures[iface->n_properties] = strdup(signature);
	*index = iface->n_properties++;
	return i;
}

/* Make room for @n values of interface @i in @object, the new ones empty. */
static int object_grow(struct floor_object *object, unsigned int i, unsigned int n)
{
	struct floor_value *values;

	if (object->values[i] && object->n_values[i] >= n)
		return 0;
	values = realloc(object->values[i], n * sizeof(*values));
	if (!values)
		return -ENOMEM;
	memset(values + object->n_values[i], 0,
	       (n - object->n_values[i]) * sizeof(*values));
	object->values[i] = values;
	object->n_values[i] = n;
	return 0;
}

/* Read one interface's a{sv} of one object into @object. */
static int object_read_interface(struct floor_tree *tree, struct floor_object *object,
				 const char *interface, sd_bus_message *m)
{
	int r = sd_bus_message_enter_container(m, 'a', "{sv}");

	while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		struct floor_value value = {};
		const char *property;
		unsigned int index;
		int i;

		r = sd_bus_message_read_basic(m, 's', &property);
		if (r >= 0)
			r = value_read(m, &value);
		if (r >= 0)
			r = i = schema_add(tree, interface, property, value.signature, &index);
		if (r >= 0)
			r = object_grow(object, i, tree->interfaces[i].n_properties);
		if (r >= 0) {
			object->values[i][index] = value;
			r = sd_bus_message_exit_container(m);
		}
	}
	return r < 0 ? r : sd_bus_message_exit_container(m);
}

static int object_read(struct floor_tree *tree, struct floor_object *object,
		       const char *root, sd_bus_message *m)
{
	const char *path, *interface;
	int r;

	r = sd_bus_message_read_basic(m, 'o', &path);
	if (r < 0)
		return r;
	if (strncmp(path, root, strlen(root)) != 0)
		return -EINVAL;
	if (asprintf(&object->path, "%s%s", FLOOR_TREE_ROOT, path + strlen(root)) < 0)
		return -ENOMEM;

	r = sd_bus_message_enter_container(m, 'a', "{sa{sv}}");
	while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sa{sv}")) > 0) {
		r = sd_bus_message_read_basic(m, 's', &interface);
		if (r >= 0 && strncmp(interface, "org.freedesktop.DBus.", 21) == 0)
			r = sd_bus_message_skip(m, "a{sv}");
		else if (r >= 0)
			r = object_read_interface(tree, object, interface, m);
		if (r >= 0)
			r = sd_bus_message_exit_container(m);
	}
	return r < 0 ? r : sd_bus_message_exit_container(m);
}

/*
 * Objects whose interface lacks a property another object has get an
 * empty value of its type, so that every values array is full-sized.
 */
static int tree_fill_gaps(struct floor_tree *tree)
{
	for (unsigned int o = 0; o < tree->n_objects; o++)
		for (unsigned int i = 0; i < tree->n_interfaces; i++) {
			struct floor_interface *iface = &tree->interfaces[i];
			struct floor_value *values;

			if (!tree->objects[o].values[i])
				continue;
			if (object_grow(&tree->objects[o], i, iface->n_properties) < 0)
				return -ENOMEM;
			values = tree->objects[o].values[i];
			for (unsigned int p = 0; p < iface->n_properties; p++)
				if (!values[p].signature) {
					memset(&values[p], 0, sizeof(values[p]));
					values[p].signature = strdup(iface->property_signatures[p]);
					if (values[p].signature[0] == 's' || values[p].signature[0] == 'o')
						values[p].str = strdup(values[p].signature[0] == 'o' ? "/" : "");
				}
		}
	return 0;
}

static int tree_register_vtables(struct floor_tree *tree, sd_bus *bus)
{
	for (unsigned int i = 0; i < tree->n_interfaces; i++) {
		struct floor_interface *iface = &tree->interfaces[i];
		sd_bus_vtable *vt = calloc(iface->n_properties + 2, sizeof(*vt));
		int r;

		if (!vt)
			return -ENOMEM;
		vt[0] = (sd_bus_vtable) SD_BUS_VTABLE_START(0);
		for (unsigned int p = 0; p < iface->n_properties; p++)
			vt[p + 1] = (sd_bus_vtable) SD_BUS_PROPERTY(iface->property_names[p],
				iface->property_signatures[p], property_get,
				p * sizeof(struct floor_value),
				SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE);
		vt[iface->n_properties + 1] = (sd_bus_vtable) SD_BUS_VTABLE_END;
		iface->vtable = vt;
		r = sd_bus_add_fallback_vtable(bus, &iface->slot, FLOOR_TREE_ROOT,
					       iface->name, vt, object_find, tree);
		if (r < 0)
			return r;
	}
	return 0;
}

int floor_tree_load(struct floor_tree *tree, sd_bus *bus, const char *service,
		    const char *root)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	int r;

	floor_tree_clear(tree);
	r = sd_bus_call_method(bus, service, root, "org.freedesktop.DBus.ObjectManager",
			       "GetManagedObjects", &error, &reply, "");
	sd_bus_error_free(&error);
	if (r < 0)
		return r;

	r = sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}");
	while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}")) > 0) {
		struct floor_object *objects = realloc(tree->objects,
			(tree->n_objects + 1) * sizeof(*objects));

		if (!objects) {
			r = -ENOMEM;
			break;
		}
		tree->objects = objects;
		memset(&objects[tree->n_objects], 0, sizeof(*objects));
		r = object_read(tree, &objects[tree->n_objects++], root, reply);
		if (r >= 0)
			r = sd_bus_message_exit_container(reply);
	}
	sd_bus_message_unref(reply);
	if (r < 0)
		return r;

	qsort(tree->objects, tree->n_objects, sizeof(*tree->objects), object_compare);
	r = tree_fill_gaps(tree);
	if (r < 0)
		return r;
	return tree_register_vtables(tree, bus);
}

unsigned int floor_tree_count(const struct floor_tree *tree)
{
	return tree->n_objects;
}

void floor_tree_clear(struct floor_tree *tree)
{
	for (unsigned int o = 0; o < tree->n_objects; o++) {
		for (unsigned int i = 0; i < tree->n_interfaces; i++) {
			struct floor_value *values = tree->objects[o].values[i];

			for (unsigned int p = 0; p < tree->objects[o].n_values[i]; p++)
				value_clear(&values[p]);
			free(values);
		}
		free(tree->objects[o].path);
	}
	free(tree->objects);
	for (unsigned int i = 0; i < tree->n_interfaces; i++) {
		struct floor_interface *iface = &tree->interfaces[i];

		sd_bus_slot_unref(iface->slot);
		for (unsigned int p = 0; p < iface->n_properties; p++) {
			free(iface->property_names[p]);
			free(iface->property_signatures[p]);
		}
		free(iface->property_names);
		free(iface->property_signatures);
		free(iface->vtable);
		free(iface->name);
	}
	memset(tree, 0, sizeof(*tree));
}
