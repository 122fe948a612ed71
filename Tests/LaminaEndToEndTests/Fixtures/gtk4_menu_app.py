#!/usr/bin/env python3
"""A GTK 4 app for laminad's Wayland tests: a window with one big blue button in the middle of
its upper half; tapping it prints "clicked" and opens a popover menu (an xdg_popup) under it.
Run with WAYLAND_DISPLAY set."""
import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gio, Gtk  # noqa: E402

CSS = b"""
button.target { background: #2060e0; color: white; font-size: 24px; }
"""


def activate(app: Gtk.Application) -> None:
    window = Gtk.ApplicationWindow(application=app, title="gtk-menu-test")
    provider = Gtk.CssProvider()
    provider.load_from_data(CSS)
    Gtk.StyleContext.add_provider_for_display(window.get_display(), provider, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
    button = Gtk.Button(label="Tap me")
    button.add_css_class("target")
    button.set_size_request(300, 120)
    button.set_halign(Gtk.Align.CENTER)
    button.set_valign(Gtk.Align.START)
    button.set_margin_top(60)
    menu = Gio.Menu()
    menu.append("First item", "app.first")
    menu.append("Second item", "app.second")
    popover = Gtk.PopoverMenu.new_from_model(menu)
    popover.set_parent(button)
    popover.set_has_arrow(False)

    def clicked(_button: Gtk.Button) -> None:
        print("clicked", flush=True)
        popover.popup()

    def shown(_popover: Gtk.Popover) -> None:
        print("menu shown", flush=True)

    button.connect("clicked", clicked)
    popover.connect("show", shown)
    for name in ("first", "second"):
        action = Gio.SimpleAction.new(name, None)
        action.connect("activate", lambda _a, _p, n=name: print(f"chose {n}", flush=True))
        app.add_action(action)
    window.set_child(button)
    window.present()
    print("window shown", flush=True)


app = Gtk.Application(application_id="org.lamina.GtkMenuTest", flags=Gio.ApplicationFlags.NON_UNIQUE)
app.connect("activate", activate)
app.run([])
