/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <systemd/sd-bus.h>

#define FLOOR_TREE_ROOT		"/org/sbd/Floor/tree"
#define FLOOR_MAX_INTERFACES	8

/* One property value, held in memory in its D-Bus type. */
struct floor_value {
	char *signature;	/* "s", "o", "t", "u", "b", "ao", "as", "a{ss}" */
	union {
		char *str;
		uint64_t u64;
		uint32_t u32;
		int boolean;
		char **strv;	/* arrays; a{ss} as key, value, key, value... */
	};
};

/* An interface as the tree has it: the union of its properties. */
struct floor_interface {
	char *name;
	unsigned int n_properties;
	char **property_names;
	char **property_signatures;
	sd_bus_vtable *vtable;
	sd_bus_slot *slot;
};

struct floor_object {
	char *path;
	/* Indexed like floor_tree.interfaces; NULL where the object has none. */
	struct floor_value *values[FLOOR_MAX_INTERFACES];
	unsigned int n_values[FLOOR_MAX_INTERFACES];
};

struct floor_tree {
	struct floor_interface interfaces[FLOOR_MAX_INTERFACES];
	unsigned int n_interfaces;
	struct floor_object *objects;	/* sorted by path */
	unsigned int n_objects;
};

int floor_tree_register(struct floor_tree *tree, sd_bus *bus);
int floor_tree_load(struct floor_tree *tree, sd_bus *bus, const char *service,
		    const char *root);
unsigned int floor_tree_count(const struct floor_tree *tree);
void floor_tree_clear(struct floor_tree *tree);
