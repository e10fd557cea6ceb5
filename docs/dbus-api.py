#!/usr/bin/python3
"""dbus-api.py XML OUTPUT: the D-Bus API reference of org.sbd.Sbd1.

One reStructuredText document made from dbus/org.sbd.Sbd1.xml: the XML's
opening comment (the objects, the attribute properties, the errors) as its
introduction, then gdbus-codegen's --generate-rst output for each interface
in the order the XML declares them. Installed with the daemon and kept in
the tree as docs/org.sbd.Sbd1.rst (the 'docs' suite checks that copy is
what this script makes of the current XML; `dbus-api.py
dbus/org.sbd.Sbd1.xml docs/org.sbd.Sbd1.rst` brings it up to date).
"""
import os
import subprocess
import sys
import tempfile
import textwrap
import xml.dom.minidom

TITLE = "org.sbd.Sbd1: the D-Bus API of sbdd"


def intro(dom):
    """The comment before <node>, dedented: the API's overview."""
    for child in dom.childNodes:
        if child.nodeType == child.COMMENT_NODE:
            return textwrap.dedent(child.data).strip("\n")
    sys.exit("dbus-api: %s has no opening comment" % sys.argv[1])


def interfaces(dom, xml_path):
    """gdbus-codegen's rst for every interface, in the XML's order."""
    names = [i.getAttribute("name") for i in dom.getElementsByTagName("interface")]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["gdbus-codegen", "--generate-rst", os.path.join(tmp, "api"),
                        os.path.abspath(xml_path)], check=True)
        parts = []
        for name in names:
            with open(os.path.join(tmp, "api-%s.rst" % name), encoding="utf-8") as f:
                parts.append(f.read().strip("\n"))
    return names, parts


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: dbus-api.py XML OUTPUT")
    xml_path, out_path = sys.argv[1:]
    dom = xml.dom.minidom.parse(xml_path)
    names, parts = interfaces(dom, xml_path)
    bar = "#" * len(TITLE)
    lines = [bar, TITLE, bar, "",
             "Generated from ``dbus/org.sbd.Sbd1.xml`` by ``docs/dbus-api.py`` "
             "(``gdbus-codegen --generate-rst``); do not edit, regenerate.", "",
             "Interfaces: " + ", ".join("`%s`_" % n for n in names) + ".", "",
             "::", ""]
    lines += [("    " + l).rstrip() for l in intro(dom).splitlines()]
    text = "\n".join(lines) + "\n\n" + "\n\n".join(parts) + "\n"
    with open(out_path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(out_path + ".tmp", out_path)


if __name__ == "__main__":
    main()
