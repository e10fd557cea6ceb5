# -*- coding: utf-8 -*-
# Copyright: SBD maintainers
# GNU General Public License v2.0 or later (see COPYING or https://www.gnu.org/licenses/gpl-2.0.txt)
"""The sbd.sbd collection's way to sbdd: its D-Bus API on the target's
system bus, through GLib's Gio (Debian's python3-gi), never sysfs.

Two halves: pure logic (sizes, what a task must change, the diff), which
the unit tests cover without a bus, and SbdClient, the few D-Bus calls.
The calls run as the user the task runs as (become decides): sbdd lets
root do everything and asks polkit for anyone else."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import re

GI_IMPORT_ERROR = None
try:
    import gi
    gi.require_version('Gio', '2.0')
    from gi.repository import Gio, GLib
except (ImportError, ValueError) as e:  # ValueError: no Gio typelib
    GI_IMPORT_ERROR = e

BUS_NAME = 'org.sbd.Sbd1'
ROOT = '/org/sbd/Sbd1'
MODULE_PATH = ROOT + '/module'
MANAGER_IFACE = 'org.sbd.Sbd1.Manager'
MODULE_IFACE = 'org.sbd.Sbd1.Module'
DRIVER_IFACE = 'org.sbd.Sbd1.Driver'
DEVICE_IFACE = 'org.sbd.Sbd1.Device'
PROPS_IFACE = 'org.freedesktop.DBus.Properties'
OM_IFACE = 'org.freedesktop.DBus.ObjectManager'
# module loads with many disks took minutes in slow guests
TIMEOUT_MS = 300000

# the device attributes sbd_device manages: option -> (property, D-Bus type)
DEVICE_ATTRS = (
    ('size', 'Size', 't'),
    ('label', 'Label', 's'),
    ('read_only', 'ReadOnly', 'b'),
    ('online', 'Online', 'b'),
)

_SUFFIXES = {'': 1, 'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30, 'T': 1 << 40, 'P': 1 << 50, 'E': 1 << 60}


class SbdError(Exception):
    """An error answered by sbdd (or the bus): the D-Bus error's name and text."""

    def __init__(self, what, name, message):
        super(SbdError, self).__init__('%s: %s (%s)' % (what, message, name))
        self.what = what
        self.name = name
        self.message = message


def parse_size(value):
    """Bytes from an int or a text like sbdctl takes: 67108864, 64M, 1G (powers of 1024)."""
    if isinstance(value, bool):
        raise ValueError('a size must be a number of bytes, not a boolean')
    if isinstance(value, int):
        n = value
    else:
        m = re.match(r'^\s*([0-9]+)\s*([KMGTPE]?)(?:i?B)?\s*$', str(value), re.IGNORECASE)
        if not m:
            raise ValueError("invalid size '%s': expected bytes, optionally with a K, M, G, T, P or E suffix" % value)
        n = int(m.group(1)) * _SUFFIXES[m.group(2).upper()]
    if n <= 0 or n >= 1 << 64:
        raise ValueError("invalid size '%s': out of range" % value)
    return n


def device_name(device_id):
    return 'sbd%d' % device_id


def device_path(device_id):
    return '%s/devices/%s' % (ROOT, device_name(device_id))


def device_view(props):
    """The attributes sbd_device manages, from a device's properties (None: absent)."""
    if props is None:
        return {'state': 'absent'}
    view = {'state': 'present'}
    for option, prop, _ in DEVICE_ATTRS:
        if prop in props:
            view[option] = props[prop]
    return view


def plan_device(current, wanted_state, wanted):
    """What a task must do to a device.

    current: the device's properties (dict, None when it does not exist).
    wanted: option -> value for the options the task sets (size already
    in bytes). Returns (steps, before, after): steps are ('add', size),
    ('set', property, D-Bus type, value) and ('remove',), in the order to
    run them; before and after are the views for --diff."""
    before = device_view(current)
    if wanted_state == 'absent':
        if current is None:
            return [], before, before
        return [('remove',)], before, {'state': 'absent'}
    steps = []
    after = dict(before)
    after['state'] = 'present'
    if current is None:
        if 'size' not in wanted:
            raise ValueError('size is required to create a device')
        steps.append(('add', wanted['size']))
        after['size'] = wanted['size']
        # what a new disk has (the module's defaults); the read-back after
        # AddDevice decides which sets are really needed
        current = {'Size': wanted['size']}
    sets = []
    for option, prop, dbus_type in DEVICE_ATTRS:
        if option in wanted and wanted[option] is not None and current.get(prop) != wanted[option]:
            sets.append(('set', prop, dbus_type, wanted[option]))
            after[option] = wanted[option]
    # an offline disk fails I/O, not attribute writes: going online comes
    # first, going offline last, so the disk is never offline for longer
    online = [s for s in sets if s[1] == 'Online']
    others = [s for s in sets if s[1] != 'Online']
    if online and online[0][3]:
        sets = online + others
    else:
        sets = others + online
    return steps + sets, before, after


def plan_module(current_state, wanted_state):
    """'load', 'unload' or None for a module in current_state."""
    loaded = current_state in ('live', 'coming', 'builtin')
    if wanted_state == 'loaded':
        return None if loaded else 'load'
    if current_state == 'builtin':
        raise ValueError('the sbd module is built into the kernel: it cannot be unloaded')
    return 'unload' if loaded else None


def parameters_differ(live, wanted):
    """The wanted parameters whose text differs from the live module's."""
    return dict((k, v) for k, v in (wanted or {}).items() if str(live.get(k)) != str(v))


def facts_from(objects, daemon_version, mem_used):
    """sbd_info's facts from GetManagedObjects' answer (and the MemUsed values
    GetManagedObjects leaves out: path -> bytes as text)."""
    module = {}
    driver_path, driver = None, None
    devices = {}
    for path, ifaces in objects.items():
        if MODULE_IFACE in ifaces:
            module = ifaces[MODULE_IFACE]
        if DRIVER_IFACE in ifaces:
            driver_path, driver = path, ifaces[DRIVER_IFACE]
        if DEVICE_IFACE in ifaces:
            p = ifaces[DEVICE_IFACE]
            name = p.get('SysName', path.rsplit('/', 1)[-1])
            d = {'path': path, 'id': int(name[3:]) if name[3:].isdigit() else None,
                 'size': p.get('Size'), 'label': p.get('Label'), 'read_only': p.get('ReadOnly'),
                 'online': p.get('Online'), 'block_device': p.get('BlockDevice')}
            if path in mem_used:
                d['mem_used'] = _int_or_none(mem_used[path])
            devices[name] = d
    state = module.get('State', 'unloaded')
    facts = {
        'daemon_version': daemon_version,
        'module': {'name': module.get('Name', 'sbd'), 'state': state,
                   'loaded': state in ('live', 'builtin'),
                   'ref_count': module.get('RefCount'),
                   'parameters': dict(module.get('Parameters', {}))},
        'driver': None,
        'budget': None,
        'devices': devices,
    }
    if driver is not None:
        facts['driver'] = {'path': driver_path, 'version': driver.get('Version'),
                           'ndevices': driver.get('Ndevices')}
        facts['budget'] = {'used_bytes': _int_or_none(mem_used.get(driver_path)),
                           'max_bytes': _int_or_none(driver.get('MemMax'))}
    return facts


def _int_or_none(text):
    try:
        return int(str(text).strip())
    except (TypeError, ValueError):
        return None


class SbdClient:
    """The D-Bus calls, on the system bus (DBUS_SYSTEM_BUS_ADDRESS honoured)."""

    def __init__(self):
        try:
            self.bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
        except GLib.Error as e:
            raise SbdError('Could not connect to the system bus', 'org.freedesktop.DBus.Error.NoServer', e.message)

    def call(self, what, path, iface, method, args, reply):
        try:
            r = self.bus.call_sync(BUS_NAME, path, iface, method, args,
                                   GLib.VariantType(reply) if reply else None,
                                   Gio.DBusCallFlags.NONE, TIMEOUT_MS, None)
        except GLib.Error as e:
            name = Gio.DBusError.get_remote_error(e) or 'org.freedesktop.DBus.Error.Failed'
            Gio.DBusError.strip_remote_error(e)
            raise SbdError(what, name, e.message)
        return r.unpack() if r is not None else None

    def managed_objects(self):
        return self.call('Could not list the objects of sbdd', ROOT, OM_IFACE, 'GetManagedObjects', None,
                         '(a{oa{sa{sv}}})')[0]

    def get(self, path, iface, prop):
        return self.call('Could not read %s of %s' % (prop, path), path, PROPS_IFACE, 'Get',
                         GLib.Variant('(ss)', (iface, prop)), '(v)')[0]

    def set(self, name, prop, dbus_type, value):
        what = "Could not set %s of %s to '%s'" % (prop, name, value)
        self.call(what, '%s/devices/%s' % (ROOT, name), PROPS_IFACE, 'Set',
                  GLib.Variant('(ssv)', (DEVICE_IFACE, prop, GLib.Variant(dbus_type, value))), None)

    def device(self, device_id):
        """The device's properties, None when it does not exist."""
        path = device_path(device_id)
        objects = self.managed_objects()
        return objects.get(path, {}).get(DEVICE_IFACE)

    def module_properties(self):
        return self.managed_objects().get(MODULE_PATH, {}).get(MODULE_IFACE, {})

    def add_device(self, size, device_id):
        return self.call('Could not add %s of %d bytes' % (device_name(device_id), size), ROOT, MANAGER_IFACE,
                         'AddDevice', GLib.Variant('(ta{sv})', (size, {'id': GLib.Variant('u', device_id)})),
                         '(o)')[0]

    def remove_device(self, device_id):
        self.call('Could not remove %s' % device_name(device_id), ROOT, MANAGER_IFACE, 'RemoveDevice',
                  GLib.Variant('(oa{sv})', (device_path(device_id), {})), None)

    def load(self, parameters):
        self.call('Could not load the sbd module', MODULE_PATH, MODULE_IFACE, 'Load',
                  GLib.Variant('(a{ss})', (dict((k, str(v)) for k, v in (parameters or {}).items()),)), None)

    def unload(self):
        self.call('Could not unload the sbd module', MODULE_PATH, MODULE_IFACE, 'Unload', None, None)

    def facts(self):
        objects = self.managed_objects()
        version = self.get(ROOT, MANAGER_IFACE, 'Version')
        mem_used = {}
        for path, ifaces in objects.items():
            for iface in (DRIVER_IFACE, DEVICE_IFACE):
                if iface in ifaces:
                    try:
                        mem_used[path] = self.get(path, iface, 'MemUsed')
                    except SbdError:
                        pass  # gone meanwhile, or a module without mem_used
        return facts_from(objects, version, mem_used)


def fail_sbd(module, err, **extra):
    """fail_json with the D-Bus error's name and text."""
    module.fail_json(msg=str(err), dbus_error=err.name, dbus_message=err.message, **extra)


def require_gi(module):
    if GI_IMPORT_ERROR is not None:
        from ansible.module_utils.basic import missing_required_lib
        module.fail_json(msg=missing_required_lib('python3-gi (PyGObject, with the Gio typelib)'),
                         exception=str(GI_IMPORT_ERROR))
