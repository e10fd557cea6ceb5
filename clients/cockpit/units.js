// SPDX-License-Identifier: GPL-2.0-or-later
// Sizes as the page shows and reads them: binary units, as sbdctl and the
// module's own K/M/G suffixes mean them (K = 1024).

export const UNITS = [
    { name: "B", factor: 1 },
    { name: "KiB", factor: 1024 },
    { name: "MiB", factor: 1024 ** 2 },
    { name: "GiB", factor: 1024 ** 3 },
    { name: "TiB", factor: 1024 ** 4 },
];

// "16 MiB", "1.5 GiB", "512 B": at most one decimal, none when exact.
export function formatBytes(n) {
    if (typeof n !== "number" || !Number.isFinite(n) || n < 0)
        return "";
    let u = UNITS[0];
    for (const unit of UNITS) {
        if (n >= unit.factor)
            u = unit;
    }
    const v = n / u.factor;
    const text = Number.isInteger(v) ? String(v) : v.toFixed(1);
    return text + " " + u.name;
}

// The unit that shows n exactly with the smallest number (for an edit
// field): 64 MiB, not 65536 KiB; 1000 B stays in bytes.
export function exactUnit(n) {
    let best = UNITS[0];
    for (const unit of UNITS) {
        if (n > 0 && n % unit.factor === 0)
            best = unit;
    }
    return best;
}

// The number a user typed times the unit's factor; null when it is not a
// number of that unit in bytes (the daemon and the kernel judge the rest:
// 0, not a multiple of 512, over the limit).
export function parseSize(text, unitName) {
    const t = String(text).trim();
    if (!/^[0-9]+(\.[0-9]+)?$/.test(t))
        return null;
    const unit = UNITS.find(u => u.name === unitName) || UNITS[0];
    const v = Math.round(parseFloat(t) * unit.factor);
    if (!Number.isSafeInteger(v))
        return null;
    return v;
}

// sysfs numbers come as strings (MemUsed, MemMax: type s); "" or junk is
// "not known".
export function parseCount(s) {
    if (typeof s === "number")
        return s;
    const t = String(s ?? "").trim();
    return /^[0-9]+$/.test(t) ? parseInt(t, 10) : null;
}
