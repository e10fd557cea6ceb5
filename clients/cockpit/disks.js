// SPDX-License-Identifier: GPL-2.0-or-later
// The disks table: one row per org.sbd.Sbd1.Device proxy, a details row
// under it with every mirrored property and the in-place edits. Rows are
// made once and updated in place, so a change to one of 1,000 disks
// touches one row.

import { UNITS, formatBytes, exactUnit, parseSize } from "./units.js";
import { show_error, clear_error, yes_no } from "./ui.js";

const cockpit = window.cockpit;
const _ = cockpit.gettext;

// the properties that are not sysfs attributes (shown first, not edited)
const FIXED = ["SysName", "SysPath", "BlockDevice", "Driver"];

function natural(a, b) {
    return String(a).localeCompare(String(b), undefined, { numeric: true });
}

// sort keys of a row (used: MemUsed, asked for by the page, see sbd.js)
const SORT_KEYS = {
    name: r => r.proxy.SysName || "",
    label: r => r.proxy.Label || "",
    size: r => r.proxy.Size ?? -1,
    used: r => r.used ?? -1,
    readonly: r => r.proxy.ReadOnly ? 1 : 0,
    online: r => r.proxy.Online ? 1 : 0,
};

function el(tag, props, ...children) {
    const e = document.createElement(tag);
    if (props) {
        for (const [k, v] of Object.entries(props)) {
            if (k === "dataset")
                Object.assign(e.dataset, v);
            else if (k in e && typeof v !== "string")
                e[k] = v;
            else
                e.setAttribute(k, v);
        }
    }
    e.append(...children);
    return e;
}

export class DiskTable {
    constructor(tbody, thead, actions) {
        this.tbody = tbody;
        this.thead = thead;
        this.actions = actions;
        this.rows = new Map(); // path -> Row
        this.sort = { key: "name", dir: 1 };
        this.loading = true; // until the first view is complete: see loaded()
        this.editable = false;
        this.resort_pending = false;
        for (const th of thead.querySelectorAll("th[data-sort]")) {
            th.querySelector("button").addEventListener("click", () => this.sort_by(th.dataset.sort));
        }
    }

    count() {
        return this.rows.size;
    }

    add(proxy) {
        if (this.rows.has(proxy.path))
            return this.update(proxy);
        const row = new Row(this, proxy);
        this.rows.set(proxy.path, row);
        this.schedule_resort();
    }

    update(proxy) {
        const row = this.rows.get(proxy.path);
        if (!row)
            return this.add(proxy);
        row.update();
        if (row.sort_value !== SORT_KEYS[this.sort.key](row))
            this.schedule_resort();
    }

    set_used(path, n) {
        const row = this.rows.get(path);
        if (!row || row.used === n)
            return;
        row.used = n;
        row.update();
        if (this.sort.key === "used")
            this.schedule_resort();
    }

    all_paths() {
        return [...this.rows.keys()];
    }

    open_paths() {
        return [...this.rows.values()].filter(r => !r.details.hidden).map(r => r.proxy.path);
    }

    clear() {
        for (const row of this.rows.values())
            row.destroy();
        this.rows.clear();
        this.loading = true;
    }

    remove(proxy) {
        const row = this.rows.get(proxy.path);
        if (!row)
            return;
        row.destroy();
        this.rows.delete(proxy.path);
    }

    set_editable(editable) {
        this.editable = editable;
        for (const row of this.rows.values())
            row.set_editable(editable);
    }

    sort_by(key) {
        this.sort = { key, dir: this.sort.key === key ? -this.sort.dir : 1 };
        for (const th of this.thead.querySelectorAll("th[data-sort]")) {
            if (th.dataset.sort === key)
                th.setAttribute("aria-sort", this.sort.dir > 0 ? "ascending" : "descending");
            else
                th.removeAttribute("aria-sort");
        }
        this.resort();
    }

    // the first view, all there: sort and show it once
    loaded() {
        this.loading = false;
        this.resort();
    }

    // many adds or changes in a short time sort once
    schedule_resort() {
        if (this.resort_pending || this.loading)
            return;
        this.resort_pending = true;
        window.setTimeout(() => { this.resort_pending = false; this.resort() }, 50);
    }

    resort() {
        const key = SORT_KEYS[this.sort.key];
        const rows = [...this.rows.values()];
        for (const r of rows)
            r.sort_value = key(r);
        rows.sort((a, b) => {
            const va = a.sort_value;
            const vb = b.sort_value;
            let c = typeof va === "number" && typeof vb === "number" ? va - vb : natural(va, vb);
            if (c === 0)
                c = natural(a.proxy.SysName, b.proxy.SysName);
            return c * this.sort.dir;
        });
        const frag = document.createDocumentFragment();
        for (const r of rows)
            frag.append(r.tr, r.details);
        this.tbody.append(frag);
    }
}

class Row {
    constructor(table, proxy) {
        this.table = table;
        this.proxy = proxy;
        this.used = null; // MemUsed: not in the proxy (sbd.js asks by name)
        this.hidden_values = {}; // the other properties left out of the proxy
        this.name = proxy.SysName || proxy.path.split("/").pop();
        const detailsId = "details-" + this.name;

        this.expander = el("button", {
            type: "button", class: "sbd-expander", "aria-expanded": "false",
            "aria-controls": detailsId,
            "aria-label": cockpit.format(_("Details of $0"), this.name),
        });
        this.cells = {
            label: el("td", { dataset: { label: _("Label") } }),
            size: el("td", { dataset: { label: _("Size") } }),
            used: el("td", { dataset: { label: _("Used") } }),
            readonly: el("td", { dataset: { label: _("Read-only") } }),
            online: el("td", { dataset: { label: _("Online") } }),
        };
        this.removeButton = el("button", {
            type: "button", class: "sbd-button sbd-secondary-danger",
            "aria-label": cockpit.format(_("Remove $0"), this.name),
        }, _("Remove"));
        this.removeError = el("p", { class: "sbd-error", role: "alert", hidden: true });
        this.removeButton.addEventListener("click", () => {
            clear_error(this.removeError);
            this.table.actions.remove_device(this.proxy).then(err => {
                if (err)
                    show_error(this.removeError, err);
            });
        });
        this.tr = el("tr", { dataset: { name: this.name } },
                     el("th", { scope: "row" }, this.expander, " ", el("span", { class: "sbd-name" }, this.name)),
                     this.cells.label, this.cells.size, this.cells.used,
                     this.cells.readonly, this.cells.online,
                     el("td", { class: "sbd-row-actions" }, this.removeButton, this.removeError));

        // the details are made when first opened (1,000 rows stay light)
        this.props = null;
        this.fields = {};
        this.details = el("tr", { class: "sbd-details", id: detailsId, hidden: true, dataset: { details: this.name } });
        this.expander.addEventListener("click", () => this.toggle());
        this.update();
        this.set_editable(table.editable);
    }

    fill_details() {
        this.props = el("dl", { class: "sbd-props" });
        this.fields = this.make_fields();
        this.details.append(el("td", { colspan: "7" },
                               el("div", { class: "sbd-details-body" },
                                  el("form", { class: "sbd-edit", "aria-label": cockpit.format(_("Settings of $0"), this.name) },
                                     ...Object.values(this.fields).map(f => f.box)),
                                  this.props)));
        this.set_editable(this.table.editable);
    }

    toggle() {
        const open = this.details.hidden;
        if (open && !this.props)
            this.fill_details();
        this.details.hidden = !open;
        this.expander.setAttribute("aria-expanded", String(open));
        if (open) {
            this.update();
            this.fetch_hidden();
        }
    }

    // The four edits; each applies on Enter or when the field is left
    // (change), shows the daemon's refusal under itself, and shows the
    // daemon's value again afterwards.
    make_fields() {
        const fields = {};
        const id = p => "edit-" + this.name + "-" + p;

        const label = el("input", { id: id("Label"), dataset: { field: "Label" }, maxlength: "200" });
        fields.Label = this.field("Label", _("Label"), label, el("span", {}, label),
                                  () => label.value, v => { label.value = v ?? "" }, "s");

        const size = el("input", { id: id("Size"), dataset: { field: "Size" }, inputmode: "decimal" });
        const unit = el("select", { "aria-label": _("Unit"), dataset: { unitFor: "Size" } });
        for (const u of UNITS)
            unit.append(el("option", { value: u.name }, u.name));
        fields.Size = this.field("Size", _("Size"), size, el("span", { class: "sbd-size-input" }, size, unit),
                                 () => parseSize(size.value, unit.value),
                                 v => {
                                     if (typeof v !== "number")
                                         return;
                                     const u = exactUnit(v);
                                     size.value = String(v / u.factor);
                                     unit.value = u.name;
                                 }, "t", [unit]);

        for (const [prop, text] of [["ReadOnly", _("Read-only")], ["Online", _("Online")]]) {
            const box = el("input", { id: id(prop), type: "checkbox", role: "switch", dataset: { field: prop } });
            fields[prop] = this.field(prop, text, box, el("span", { class: "sbd-switch" }, box),
                                      () => box.checked, v => { box.checked = !!v }, "b");
        }
        return fields;
    }

    field(prop, text, input, control, read, write, signature, also = []) {
        const error = el("p", { class: "sbd-error", id: "error-" + this.name + "-" + prop, hidden: true, dataset: { errorFor: prop } });
        input.setAttribute("aria-describedby", error.id);
        const box = el("div", { class: "sbd-field" }, el("label", { for: input.id }, text), control, error);
        const f = { prop, input, also, error, box, read, write, busy: false };
        const apply = () => this.apply(f, signature);
        if (signature === "b") {
            input.addEventListener("change", apply);
        } else {
            // Enter, or leaving the field (with its unit: moving between the
            // number and its unit does not apply yet)
            input.addEventListener("keydown", ev => {
                if (ev.key === "Enter") {
                    ev.preventDefault();
                    apply();
                }
            });
            control.addEventListener("focusout", ev => {
                if (!control.contains(ev.relatedTarget))
                    apply();
            });
        }
        return f;
    }

    apply(f, signature) {
        if (f.busy)
            return;
        const value = f.read();
        if (value === null) {
            show_error(f.error, _("Enter the size as a number."), f.input);
            return;
        }
        // leaving a field unchanged keeps the last refusal in view
        if (value === this.proxy[f.prop])
            return;
        clear_error(f.error, f.input);
        f.busy = true;
        this.table.actions.set_property(this.proxy, f.prop, signature, value).then(err => {
            f.busy = false;
            if (err)
                show_error(f.error, err, f.input);
            f.write(this.proxy[f.prop]); // the daemon's value, accepted or not
        });
    }

    set_editable(editable) {
        for (const f of Object.values(this.fields)) {
            f.input.disabled = !editable;
            for (const a of f.also)
                a.disabled = !editable;
        }
        this.removeButton.disabled = !editable;
    }

    update() {
        const p = this.proxy;
        this.cells.label.textContent = p.Label ?? "";
        this.cells.size.textContent = formatBytes(p.Size);
        this.cells.used.textContent = this.used === null ? "\u2014" : formatBytes(this.used);
        this.cells.readonly.textContent = yes_no(p.ReadOnly);
        this.cells.online.textContent = yes_no(p.Online);
        this.tr.classList.toggle("sbd-offline", p.Online === false);
        for (const f of Object.values(this.fields)) {
            // never under the user's fingers, nor while a write is out
            const typing = document.activeElement === f.input || f.also.includes(document.activeElement);
            if (!f.busy && !(typing && f.input.type !== "checkbox"))
                f.write(p[f.prop]);
        }
        if (!this.details.hidden)
            this.update_props();
    }

    // Properties marked Explicit (power/, MemUsed) are not in
    // GetManagedObjects: the details ask for every property the object's
    // introspection declares and the proxy lacks, by name, when opened.
    fetch_hidden() {
        this.table.actions.get_hidden(this.proxy).then(values => {
            this.hidden_values = values;
            if (!this.details.hidden)
                this.update_props();
        });
    }

    // every property the object has: the fixed ones, then the attributes
    update_props() {
        const data = { ...this.hidden_values, ...this.proxy.data };
        const names = Object.keys(data).sort((a, b) => {
            const fa = FIXED.indexOf(a);
            const fb = FIXED.indexOf(b);
            if (fa >= 0 || fb >= 0)
                return (fa < 0 ? 99 : fa) - (fb < 0 ? 99 : fb);
            return a.localeCompare(b);
        });
        const items = [];
        for (const n of names) {
            let v = data[n];
            if (typeof v === "boolean")
                v = yes_no(v);
            else if (n === "Size")
                v = v + " (" + formatBytes(v) + ")";
            else if (typeof v === "object" && v !== null)
                v = JSON.stringify(v);
            items.push(el("dt", {}, n), el("dd", { dataset: { prop: n } }, String(v).trim()));
        }
        this.props.replaceChildren(...items);
    }

    destroy() {
        this.tr.remove();
        this.details.remove();
    }
}
