// SPDX-License-Identifier: GPL-2.0-or-later
// The SBD page: a thin client of sbdd's public D-Bus API (org.sbd.Sbd1).
// One ObjectManager watch brings every object and every later change; the
// page only draws what the proxies hold and sends what the user asks for.

import { UNITS, formatBytes, parseSize, parseCount } from "./units.js";
import { DiskTable } from "./disks.js";
import { follow_dark_style, show_error, clear_error, confirm } from "./ui.js";

const cockpit = window.cockpit;
const _ = cockpit.gettext;

const BUS_NAME = "org.sbd.Sbd1";
const ROOT = "/org/sbd/Sbd1";
const MODULE_PATH = ROOT + "/module";
const IFACE = {
    manager: "org.sbd.Sbd1.Manager",
    module: "org.sbd.Sbd1.Module",
    driver: "org.sbd.Sbd1.Driver",
    device: "org.sbd.Sbd1.Device",
};

const $ = id => document.getElementById(id);

const state = {
    owner: undefined, // the daemon's unique name; null while it is gone
    allowed: null, // may this session change things (administrative access)
    driver_used: null, // the driver's MemUsed, asked for by name (see refresh_used)
};

// A notice above the page; action: [label, handler] adds a button.
function notice(id, kind, title, text, action) {
    let el = $(id);
    if (!title) {
        if (el)
            el.remove();
        return;
    }
    if (!el) {
        el = document.createElement("div");
        el.id = id;
        el.setAttribute("role", kind === "danger" ? "alert" : "status");
        el.append(document.createElement("strong"), document.createElement("p"));
        $("notices").append(el);
    }
    el.className = "sbd-alert sbd-alert-" + kind;
    el.firstChild.textContent = title;
    el.children[1].textContent = text || "";
    if (action && !el.querySelector("button")) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "sbd-button sbd-link";
        b.textContent = action[0];
        b.addEventListener("click", action[1]);
        el.append(b);
    }
}

// --- what the bus holds ---------------------------------------------------

const table = new DiskTable($("disks-body"), $("disks").tHead, {
    set_property,
    remove_device,
    get_hidden,
});

// One connection: the client, its proxies and the one ObjectManager watch.
// superuser "try": with administrative access the bridge talks to the bus
// as root; without it as the user, and sbdd asks polkit (the page then
// shows a read-only view that says why). When sbdd comes back after a stop,
// the page connects afresh, so that nothing of the old daemon's view stays.
let conn = null;

function connect() {
    const client = cockpit.dbus(BUS_NAME, { bus: "system", superuser: "try" });
    const c = {
        client,
        devices: client.proxies(IFACE.device, ROOT + "/devices", { watch: false }),
        drivers: client.proxies(IFACE.driver, ROOT + "/drivers", { watch: false }),
        modules: client.proxies(IFACE.module, ROOT, { watch: false }),
    };
    const mine = f => (...args) => { if (conn === c) f(...args) };
    c.devices.addEventListener("added", mine((ev, proxy) => { table.add(proxy); used_soon() }));
    c.devices.addEventListener("changed", mine((ev, proxy) => { table.update(proxy); update_counts(); used_soon() }));
    c.devices.addEventListener("removed", mine((ev, proxy) => { table.remove(proxy); update_counts(); used_soon() }));
    c.drivers.addEventListener("changed", mine(update_budget));
    c.drivers.addEventListener("removed", mine(update_budget));
    c.modules.addEventListener("changed", mine(update_module));
    c.modules.addEventListener("removed", mine(update_module));
    client.addEventListener("owner", mine((ev, owner) => owner_changed(owner)));
    // The bridge closes the channel when the name is neither owned nor
    // activatable (sbdd not installed, or not running where activation is
    // off): the page says sbdd is not running and tries again every few
    // seconds. Anything else is a problem of the bus itself.
    client.addEventListener("close", mine((ev, options) => {
        c.closed = true;
        if (options && options.problem === "not-found") {
            owner_changed(null);
        } else {
            notice("notice-closed", "danger", _("Cannot reach the system bus"),
                   cockpit.message(options) || _("The connection closed."));
        }
        window.setTimeout(() => { if (conn === c) reconnect() }, RETRY_MS);
    }));
    conn = c;
    c.watch = client.watch({ path_namespace: ROOT });
    c.watch.then(mine(() => {
        table.loaded();
        $("page").setAttribute("aria-busy", "false");
        document.body.dataset.ready = "1";
        update_all();
        refresh_used(true);
    })).catch(mine(err => {
        table.loaded();
        document.body.dataset.ready = "1";
        if (c.closed)
            return; // said and retried by the close handler
        notice("notice-watch", "danger", _("Cannot read the RAM disks"), error_text(err));
        document.body.dataset.ready = "1";
    }));
}

const RETRY_MS = 3000;

function reconnect() {
    const old = conn;
    conn = null;
    if (!old.closed) {
        old.watch.remove();
        old.client.close();
    }
    notice("notice-closed");
    notice("notice-watch");
    table.clear();
    state.driver_used = null;
    connect();
}

// owner: sbdd's unique name, or null while nobody owns org.sbd.Sbd1. A
// connection that saw sbdd go holds the old daemon's view: when sbdd is
// back, the page connects afresh. A fresh one (opened while sbdd was not
// running) just follows it.
function owner_changed(owner) {
    const was = state.owner;
    state.owner = owner;
    if (owner === null) {
        if (was && conn)
            conn.stale = true;
        notice("notice-daemon", "warning", _("The SBD service is not running"),
               _("sbdd is not running. What is shown may be out of date, and nothing can be changed until it runs."),
               [_("Start the service"), start_service]);
    } else {
        notice("notice-daemon");
        if (was === null) {
            notice("notice-back", "info", _("The SBD service is running"),
                   _("The page shows its current state."));
            window.setTimeout(() => notice("notice-back"), 8000);
            if (conn && conn.stale) {
                reconnect();
                return;
            }
        }
        fetch_version();
    }
    update_all();
}

// MemUsed (the driver's and each disk's) moves with every first write and
// no notification: sbdd reads it on every Get and leaves it out of
// GetManagedObjects. The page asks for it by name: when the page appears,
// after any change it sees, and every few seconds while it is visible.
// Disks are asked again when the driver's total moved; with many disks,
// only the open ones.
const USED_EVERY_MS = 5000;
const USED_ALL_LIMIT = 200;
let used_timer = null;

function get_used(path, iface) {
    return conn.client.call(path, "org.freedesktop.DBus.Properties", "Get", [iface, "MemUsed"])
            .then(([v]) => parseCount(v.v), () => null);
}

function used_soon() {
    if (used_timer === null)
        used_timer = window.setTimeout(() => { used_timer = null; refresh_used(true) }, 200);
}

function refresh_used(force) {
    if (!conn || !state.owner)
        return;
    const c = conn;
    const d = first(c.drivers);
    if (!d)
        return;
    get_used(d.path, IFACE.driver).then(used => {
        if (conn !== c)
            return;
        const moved = used !== state.driver_used;
        state.driver_used = used;
        update_budget();
        if (!moved && !force)
            return;
        const rows = table.count() <= USED_ALL_LIMIT ? table.all_paths() : table.open_paths();
        for (const path of rows)
            get_used(path, IFACE.device).then(n => { if (conn === c) table.set_used(path, n) });
    });
}

window.setInterval(() => { if (!cockpit.hidden) refresh_used(false) }, USED_EVERY_MS);

// D-Bus activation starts sbdd (sbdd.service): StartServiceByName asks for
// it directly. Refused or impossible: the notice says why.
function start_service() {
    const bus = cockpit.dbus("org.freedesktop.DBus", { bus: "system", superuser: "try" });
    bus.call("/org/freedesktop/DBus", "org.freedesktop.DBus", "StartServiceByName", [BUS_NAME, 0])
            .then(() => bus.close())
            .catch(err => {
                bus.close();
                const el = $("notice-daemon");
                if (el)
                    el.children[1].textContent = cockpit.format(_("Could not start it: $0"), error_text(err));
            });
}

function fetch_version() {
    conn.client.call(ROOT, "org.freedesktop.DBus.Properties", "Get", [IFACE.manager, "Version"])
            .then(([v]) => { $("service-version").textContent = v.v })
            .catch(() => { $("service-version").textContent = "\u2014" });
}

// --- permission: read-only for everyone without administrative access ---

// Allowed: administrative access (the bridge runs as root), or membership
// in the group sbd-operators, which the polkit rule of README.md lets
// change disks without it. Anyone else reads only.
const OPERATORS = "sbd-operators";
const admin = cockpit.permission({ admin: true });
const operators = cockpit.permission({ group: OPERATORS });

function permission_changed() {
    if (admin.allowed === true || operators.allowed === true)
        state.allowed = true;
    else if (admin.allowed === false && operators.allowed === false)
        state.allowed = false;
    else
        state.allowed = null; // not known yet
    update_access();
}
admin.addEventListener("changed", permission_changed);
operators.addEventListener("changed", permission_changed);

function update_access() {
    if (state.allowed === false) {
        notice("notice-access", "info", _("Read-only: you do not have administrative access"),
               cockpit.format(_("Changing RAM disks and the module needs administrative access. Turn it on with the \u201cAdministrative access\u201d button at the top, log in as an administrator, or ask one to add you to the group $0."), OPERATORS));
    } else {
        notice("notice-access");
    }
    update_all();
}

// --- drawing ---------------------------------------------------------------

function current_module() {
    return conn ? conn.modules[MODULE_PATH] || null : null;
}

function update_module() {
    const m = current_module();
    const can = state.allowed === true && !!state.owner;
    const s = m ? m.State : undefined;
    const names = {
        live: _("Loaded"),
        coming: _("Loading"),
        going: _("Unloading"),
        unloaded: _("Not loaded"),
        builtin: _("Built into the kernel"),
    };
    $("module-state").textContent = s ? (names[s] || s) : "\u2014";
    $("module-state").dataset.state = s || "";
    const params = m && m.Parameters ? Object.keys(m.Parameters).sort()
            .map(k => k + "=" + m.Parameters[k]).join(" ") : "";
    $("module-parameters").textContent = params || "\u2014";
    $("load-form").hidden = s !== "unloaded";
    $("module-unload").hidden = s !== "live";
    $("module-load").disabled = !can;
    $("module-unload").disabled = !can;
    for (const el of $("load-form").elements)
        el.disabled = !can;
    $("add-form").hidden = s !== "live" && s !== "builtin";
    for (const el of $("add-form").elements)
        el.disabled = !can;
}

function first(proxies) {
    for (const p of Object.values(proxies))
        return p;
    return null;
}

function update_budget() {
    const d = conn ? first(conn.drivers) : null;
    const used = d ? state.driver_used : null;
    const max = d ? parseCount(d.MemMax) : null;
    $("module-version").textContent = (d && d.Version) || "\u2014";
    const bar = $("budget");
    if (used === null || !max) {
        $("budget-text").textContent = _("Not known");
        $("budget-fill").style.width = "0";
        bar.setAttribute("aria-valuenow", "0");
        bar.removeAttribute("aria-valuetext");
        return;
    }
    const pct = Math.min(100, Math.round(used * 1000 / max) / 10);
    const text = cockpit.format(_("$0 of $1 used ($2%)"), formatBytes(used), formatBytes(max), pct);
    $("budget-text").textContent = text;
    $("budget-fill").style.width = pct + "%";
    bar.classList.toggle("sbd-bar-warn", pct >= 90);
    bar.setAttribute("aria-valuenow", String(pct));
    bar.setAttribute("aria-valuetext", text);
}

function update_counts() {
    const n = table.count();
    $("disks-count").textContent = cockpit.format(cockpit.ngettext("$0 disk", "$0 disks", n), n);
    $("disks-empty").hidden = n > 0;
}

function update_all() {
    update_module();
    update_budget();
    update_counts();
    table.set_editable(state.allowed === true && !!state.owner);
}

// --- changes ---------------------------------------------------------------

// The D-Bus error as a user reads it: the daemon's message, then its name.
function error_text(err) {
    const msg = err && err.message ? err.message : String(err);
    return err && err.name ? msg + " (" + err.name + ")" : msg;
}

function set_property(proxy, name, signature, value) {
    return conn.client.call(proxy.path, "org.freedesktop.DBus.Properties", "Set",
                            [IFACE.device, name, cockpit.variant(signature, value)])
            .then(() => null, err => error_text(err));
}

// {name: value} of the properties the object declares and the proxy lacks
// (Explicit ones: power/, MemUsed), each asked for by name.
function get_hidden(proxy) {
    const c = conn;
    return c.client.call(proxy.path, "org.freedesktop.DBus.Introspectable", "Introspect", [])
            .then(([xml]) => {
                const doc = new DOMParser().parseFromString(xml, "text/xml");
                const names = [...doc.querySelectorAll("interface")]
                        .filter(i => i.getAttribute("name") === IFACE.device)
                        .flatMap(i => [...i.querySelectorAll("property")])
                        .filter(p => p.getAttribute("access") !== "write")
                        .map(p => p.getAttribute("name"))
                        .filter(n => !(n in proxy.data));
                return Promise.all(names.map(n =>
                    c.client.call(proxy.path, "org.freedesktop.DBus.Properties", "Get", [IFACE.device, n])
                            .then(([v]) => [n, v.v], () => null)));
            })
            .then(pairs => Object.fromEntries(pairs.filter(p => p)), () => ({}));
}

function remove_device(proxy) {
    const name = proxy.SysName || proxy.path.split("/").pop();
    return confirm(cockpit.format(_("Remove $0?"), name),
                   cockpit.format(_("The disk $0 and all data on it will be lost."), name),
                   _("Remove"))
            .then(ok => {
                if (!ok)
                    return null;
                return conn.client.call(ROOT, IFACE.manager, "RemoveDevice", [proxy.path, {}])
                        .then(() => null, err => error_text(err));
            });
}

function setup_add_form() {
    const unit = $("add-unit");
    unit.setAttribute("aria-label", _("Unit"));
    for (const u of UNITS) {
        const o = document.createElement("option");
        o.value = u.name;
        o.textContent = u.name;
        unit.append(o);
    }
    unit.value = "MiB";

    $("add-form").addEventListener("submit", ev => {
        ev.preventDefault();
        for (const id of ["add-size-error", "add-id-error", "add-error"])
            clear_error($(id));
        clear_error($("add-size-error"), $("add-size"));
        clear_error($("add-id-error"), $("add-id"));
        const size = parseSize($("add-size").value, unit.value);
        if (size === null) {
            show_error($("add-size-error"), _("Enter the size as a number."), $("add-size"));
            return;
        }
        const options = {};
        const idText = $("add-id").value.trim();
        if (idText !== "") {
            if (!/^[0-9]+$/.test(idText)) {
                show_error($("add-id-error"), _("Enter the disk's number, or leave it empty."), $("add-id"));
                return;
            }
            options.id = cockpit.variant("u", parseInt(idText, 10));
        }
        $("add-button").disabled = true;
        conn.client.call(ROOT, IFACE.manager, "AddDevice", [size, options])
                .then(() => { $("add-id").value = "" })
                .catch(err => {
                    // at the field that caused it: Exists is the number's,
                    // InvalidValue the size's unless it names the id
                    const name = err.name || "";
                    if (name.endsWith(".Exists") || (name.endsWith(".InvalidValue") && /\bid\b/.test(err.message || "")))
                        show_error($("add-id-error"), error_text(err), $("add-id"));
                    else if (name.endsWith(".InvalidValue"))
                        show_error($("add-size-error"), error_text(err), $("add-size"));
                    else
                        show_error($("add-error"), error_text(err));
                })
                .finally(() => { $("add-button").disabled = !(state.allowed && state.owner) });
    });
}

function setup_module_actions() {
    $("load-form").addEventListener("submit", ev => {
        ev.preventDefault();
        clear_error($("module-error"));
        const params = {};
        for (const el of $("load-form").elements) {
            if (el.name && el.value.trim() !== "")
                params[el.name] = el.value.trim();
        }
        $("module-load").disabled = true;
        conn.client.call(MODULE_PATH, IFACE.module, "Load", [params])
                .catch(err => show_error($("module-error"), error_text(err)))
                .finally(update_module);
    });
    $("module-unload").addEventListener("click", () => {
        clear_error($("module-error"));
        const n = table.count();
        confirm(_("Unload the sbd module?"),
                cockpit.format(cockpit.ngettext(
                    "Unloading destroys the disk: the data on $0 disk will be lost.",
                    "Unloading destroys every disk: the data on all $0 disks will be lost.", n), n),
                _("Unload"))
                .then(ok => {
                    if (!ok)
                        return;
                    $("module-unload").disabled = true;
                    return conn.client.call(MODULE_PATH, IFACE.module, "Unload", [])
                            .catch(err => show_error($("module-error"), error_text(err)))
                            .finally(update_module);
                });
    });
}

// --- start -----------------------------------------------------------------

cockpit.translate();
follow_dark_style();
setup_add_form();
setup_module_actions();
connect();
update_all();
