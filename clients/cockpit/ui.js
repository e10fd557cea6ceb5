// SPDX-License-Identifier: GPL-2.0-or-later
// Small pieces the page shares: field errors, the confirmation dialog, and
// the shell's light or dark style.

const cockpit = window.cockpit;
const _ = cockpit.gettext;

// The error under a field, tied to it for screen readers.
export function show_error(el, text, field) {
    el.textContent = text;
    el.hidden = false;
    if (field) {
        field.setAttribute("aria-invalid", "true");
        field.classList.add("sbd-invalid");
    }
}

export function clear_error(el, field) {
    el.textContent = "";
    el.hidden = true;
    if (field) {
        field.removeAttribute("aria-invalid");
        field.classList.remove("sbd-invalid");
    }
}

// Ask first; resolves to true when the user confirmed. The native <dialog>
// is modal, traps focus and closes on Escape.
export function confirm(title, body, action) {
    const dialog = document.getElementById("confirm");
    document.getElementById("confirm-title").textContent = title;
    document.getElementById("confirm-body").textContent = body;
    document.getElementById("confirm-ok").textContent = action;
    return new Promise(resolve => {
        dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
        dialog.returnValue = "";
        dialog.showModal();
        document.getElementById("confirm-cancel").focus();
    });
}

// Cockpit's shell keeps the chosen style in localStorage ("shell:style":
// auto, light or dark) and tells its pages with a "cockpit-style" event;
// "auto" follows the browser. Both class names: PatternFly 4 (Cockpit 287)
// and 5 (current Cockpit).
export function follow_dark_style() {
    const media = window.matchMedia("(prefers-color-scheme: dark)");
    function apply(style) {
        if (!style) {
            try {
                style = window.localStorage.getItem("shell:style");
            } catch (e) {
                style = null;
            }
        }
        const dark = style === "dark" || ((!style || style === "auto") && media.matches);
        for (const c of ["pf-theme-dark", "pf-v5-theme-dark"])
            document.documentElement.classList.toggle(c, dark);
    }
    window.addEventListener("storage", ev => { if (ev.key === "shell:style") apply() });
    window.addEventListener("cockpit-style", ev => apply(ev.detail && ev.detail.style));
    media.addEventListener("change", () => apply());
    apply();
}

export function yes_no(b) {
    if (b === undefined || b === null)
        return "\u2014";
    return b ? _("yes") : _("no");
}
