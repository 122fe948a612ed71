import CCairo
import CPango
import LaminaCore

/// What a text layer draws: the `CATextLayer` properties that change its pixels, and the size
/// of its bounds. Two equal styles rasterise to the same image at the same scale.
public struct TextStyle: Sendable, Hashable {
    public var string: String
    public var font: String
    public var fontSize: Double
    public var foregroundColor: Color
    public var alignment: TextAlignment
    public var isWrapped: Bool
    public var truncation: TruncationMode
    /// The attributed string's runs; when not empty they are drawn instead of `string`.
    public var runs: [TextRun]
    /// Points added between lines.
    public var lineSpacing: Double
    /// What is laid out: the runs' text joined, or `string` when there are no runs.
    public var text: String { runs.isEmpty ? string : TextRun.joined(runs) }
    /// Whether anything can show: some text, and a colour that is not clear.
    var hasInk: Bool {
        if runs.isEmpty { return !string.isEmpty && foregroundColor.alpha > 0 }
        return runs.contains { !$0.text.isEmpty && (($0.color ?? foregroundColor).alpha > 0 || ($0.backgroundColor?.alpha ?? 0) > 0) }
    }

    /// The bounds' size: text is laid out from the bounds' top-left and clipped to them.
    public var size: Size
    /// How many fonts were registered when the style was taken: a raster made before a font
    /// arrived (drawn with a fallback) is not reused after.
    public var fontGeneration: UInt64

    /// The text-layer properties of `p` (its presentation values, when animating).
    public init(_ p: LayerProperties) {
        string = p.string
        font = p.font
        fontSize = p.fontSize
        foregroundColor = p.foregroundColor
        alignment = p.alignmentMode
        isWrapped = p.isWrapped
        truncation = p.truncationMode
        runs = p.attributedString
        lineSpacing = p.lineSpacing
        size = p.bounds.size
        fontGeneration = FontconfigRegistry.generation.load(ordering: .relaxed)
    }
}

/// Rasterises text layers with Pango and cairo: the string laid out in the bounds as
/// `CATextLayer` lays it out, grey-scale antialiased, unhinted (so the layout is the same at
/// every scale and only the sharpness changes).
///
/// Fonts. `font` is a family name, optionally with a PostScript-style suffix (`-Bold`,
/// `-Italic`, `-Oblique`, `-BoldItalic`, `-BoldOblique`). Apple's system families that Linux does
/// not have map to fontconfig's generic families: Helvetica (Core Animation's default),
/// Helvetica Neue, Arial and the system font to `sans-serif`; Times and Times New Roman to
/// `serif`; Courier, Courier New and Menlo to `monospace`. Any other unknown name is left to
/// fontconfig, which falls back to its default (`sans-serif`). With only fonts-dejavu-core
/// installed every sans-serif name is DejaVu Sans.
public enum TextRasterizer {
    /// The largest font drawn, in pixels (font size times scale); larger sizes are drawn at
    /// this one. FreeType fails on glyphs of some 4000 pixels, and cairo keeps that error in
    /// the font map's cached fonts (see the reset in `rasterize`).
    public static let maximumFontPixels = 2048.0

    /// The text drawn at `scale` pixels per point into an image the size of the bounds, or nil
    /// when there is nothing to draw (empty string or bounds, clear colour).
    public static func rasterize(_ style: TextStyle, scale requested: Double) -> RasterImage? {
        let w = style.size.width, h = style.size.height
        guard style.hasInk, style.fontSize > 0, style.fontSize.isFinite,
              w > 0, h > 0, w.isFinite, h.isFinite, requested.isFinite, requested > 0 else { return nil }
        var scale = requested
        let longest = Swift.max(w, h) * scale
        if longest > Double(rasterMaximumSide) { scale *= Double(rasterMaximumSide) / longest }
        guard scale > 0, scale.isFinite else { return nil }
        let pw = Swift.max(1, Int((w * scale).rounded(.up))), ph = Swift.max(1, Int((h * scale).rounded(.up)))
        guard let canvas = CairoCanvas(width: pw, height: ph) else { return nil }
        let cr = canvas.context
        cairo_scale(cr, scale, scale)
        cairo_rectangle(cr, 0, 0, w, h)
        cairo_clip(cr)

        FontconfigRegistry.refreshFontMap()
        guard let layout = pango_cairo_create_layout(cr) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        configure(layout, style, maximumFontSize: maximumFontPixels / scale)
        var x = 0.0
        if style.isWrapped || style.truncation != .none {
            // Width set: Pango wraps or ellipsizes to it and aligns each line within it.
        } else {
            // No width: nothing wraps; Pango aligns the lines with each other, and the block
            // is placed in the bounds here.
            var ink = PangoRectangle(), logical = PangoRectangle()
            pango_layout_get_extents(layout, &ink, &logical)
            let blockWidth = Double(logical.width) / Double(PANGO_SCALE)
            switch style.alignment {
            case .right: x = w - blockWidth
            case .center: x = (w - blockWidth) / 2
            case .natural, .justified: x = isRightToLeft(layout) ? w - blockWidth : 0
            case .left: x = 0
            }
        }
        cairo_move_to(cr, x, 0)
        style.foregroundColor.setSource(cr)
        pango_cairo_show_layout(cr, layout)
        let status = cairo_status(cr)
        guard status == CAIRO_STATUS_SUCCESS else {
            if status == CAIRO_STATUS_FREETYPE_ERROR {
                // The font map's cached fonts are now in cairo's sticky error state and would
                // fail every later text layer: drop the (per-thread) default font map so the
                // next layout starts afresh.
                pango_cairo_font_map_set_default(nil)
            }
            return nil
        }
        return RasterImage(bitmap: canvas.bitmap(), frame: Rect(x: 0, y: 0, width: Double(pw) / scale, height: Double(ph) / scale),
                           scale: scale)
    }

    /// How many characters of the style's string no available font has a glyph for (Pango then
    /// draws a box with the code point, "tofu"). 0 when every script is covered.
    public static func unknownGlyphCount(_ style: TextStyle) -> Int {
        guard let canvas = CairoCanvas(width: 1, height: 1) else { return 0 }
        FontconfigRegistry.refreshFontMap()
        guard let layout = pango_cairo_create_layout(canvas.context) else { return 0 }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        configure(layout, style, maximumFontSize: maximumFontPixels)
        return Int(pango_layout_get_unknown_glyphs_count(layout))
    }

    /// Scale-independent metrics for `layout`: grey antialiasing, no hinting, unrounded glyph
    /// positions, so lines break and glyphs sit the same at any scale (text layers and drawings).
    static func useScaleIndependentMetrics(_ layout: OpaquePointer) {
        let context = pango_layout_get_context(layout)
        if let options = cairo_font_options_create() {
            cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
            cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
            cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
            pango_cairo_context_set_font_options(context, options)
            cairo_font_options_destroy(options)
        }
        pango_context_set_round_glyph_positions(context, 0)
        pango_layout_context_changed(layout)
    }

    static func configure(_ layout: OpaquePointer, _ style: TextStyle, maximumFontSize: Double) {
        useScaleIndependentMetrics(layout)

        let description = fontDescription(style.font, size: Swift.min(style.fontSize, maximumFontSize))
        pango_layout_set_font_description(layout, description)
        pango_font_description_free(description)

        let text = style.text
        text.withCString { pango_layout_set_text(layout, $0, -1) }
        if !style.runs.isEmpty {
            let list = attributes(style.runs, maximumFontSize: maximumFontSize)
            pango_layout_set_attributes(layout, list)
            pango_attr_list_unref(list)
        }
        let unit = Double(PANGO_SCALE)
        if style.lineSpacing != 0 {
            pango_layout_set_spacing(layout, Int32(Swift.min(Swift.max(style.lineSpacing, -1e5), 1e5) * unit))
        }
        // Pango units are 1/1024 point in an Int32.
        func pangoUnits(_ v: Double) -> Int32 { Int32(Swift.min(Swift.max(v * unit, 0), Double(Int32.max)).rounded(.down)) }
        let width = pangoUnits(style.size.width)
        if style.isWrapped || style.truncation != .none {
            pango_layout_set_width(layout, width)
        }
        if style.isWrapped {
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
            if style.truncation != .none {
                // The last line that fits the bounds' height is the one ellipsized.
                pango_layout_set_height(layout, pangoUnits(style.size.height))
            }
        }
        let ellipsize: PangoEllipsizeMode = switch style.truncation {
        case .none: PANGO_ELLIPSIZE_NONE
        case .start: PANGO_ELLIPSIZE_START
        case .middle: PANGO_ELLIPSIZE_MIDDLE
        case .end: PANGO_ELLIPSIZE_END
        }
        let alignment: PangoAlignment = switch style.alignment {
        case .right: PANGO_ALIGN_RIGHT
        case .center: PANGO_ALIGN_CENTER
        case .natural, .left, .justified: PANGO_ALIGN_LEFT
        }
        pango_layout_set_ellipsize(layout, ellipsize)
        pango_layout_set_alignment(layout, alignment)
        // Pango swaps left and right in a paragraph whose direction (from its first strong
        // character, the bidirectional algorithm's rule P2) is right to left: its LEFT is the
        // paragraph's start, which is what `natural` (and justified's last line) asks. `left`
        // and `right` are meant literally, so they are swapped back there.
        if style.alignment == .left || style.alignment == .right, isRightToLeft(layout) {
            pango_layout_set_alignment(layout, style.alignment == .left ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT)
        }
        // Justified text stretches every line but the last, as Core Text does; only wrapped
        // text has lines to stretch to a width.
        pango_layout_set_justify(layout, style.alignment == .justified && style.isWrapped ? 1 : 0)
    }

    /// Whether the layout's first paragraph runs right to left: its first strong character is
    /// Arabic, Hebrew or another right-to-left script (the Unicode bidirectional algorithm's
    /// rule P2, as Pango resolves it per paragraph). Lays the text out if it was not yet.
    static func isRightToLeft(_ layout: OpaquePointer) -> Bool {
        guard let line = pango_layout_get_line_readonly(layout, 0) else { return false }
        return line.pointee.resolved_dir == PANGO_DIRECTION_RTL.rawValue
    }

    /// The runs as Pango attributes over the joined text's UTF-8 bytes: family, size, weight and
    /// style, colours, lines, letter spacing and rise. An attribute a run leaves unset is not
    /// added, so the layout's font description (the layer's font) and the cairo source colour
    /// (the layer's foregroundColor) apply.
    static func attributes(_ runs: [TextRun], maximumFontSize: Double) -> OpaquePointer {
        let list = pango_attr_list_new()!
        let unit = Double(PANGO_SCALE)
        func units(_ v: Double) -> Int32 { Int32(Swift.min(Swift.max(v * unit, -1e9), 1e9).rounded()) }
        func c16(_ v: Double) -> UInt16 { UInt16((Swift.min(Swift.max(v, 0), 1) * 65535).rounded()) }
        var start: UInt32 = 0
        for r in runs {
            let end = start + UInt32(r.text.utf8.count)
            defer { start = end }
            guard end > start else { continue }
            func add(_ a: UnsafeMutablePointer<PangoAttribute>?) {
                guard let a else { return }
                a.pointee.start_index = start
                a.pointee.end_index = end
                pango_attr_list_insert(list, a)
            }
            let (family, bold, italic) = fontFamily(r.font)
            if !r.font.isEmpty { family.withCString { add(pango_attr_family_new($0)) } }
            if r.fontSize > 0 { add(pango_attr_size_new_absolute(units(Swift.min(r.fontSize, maximumFontSize)))) }
            if r.weight > 0 {
                add(pango_attr_weight_new(PangoWeight(rawValue: UInt32(Swift.min(Swift.max(r.weight, 100), 1000).rounded()))))
            } else if bold {
                add(pango_attr_weight_new(PANGO_WEIGHT_BOLD))
            }
            if r.italic || italic { add(pango_attr_style_new(PANGO_STYLE_ITALIC)) }
            if let c = r.color {
                add(pango_attr_foreground_new(c16(c.red), c16(c.green), c16(c.blue)))
                add(pango_attr_foreground_alpha_new(Swift.max(c16(c.alpha), 1)))
            }
            if let c = r.backgroundColor, c.alpha > 0 {
                add(pango_attr_background_new(c16(c.red), c16(c.green), c16(c.blue)))
                add(pango_attr_background_alpha_new(Swift.max(c16(c.alpha), 1)))
            }
            if r.underline { add(pango_attr_underline_new(PANGO_UNDERLINE_SINGLE)) }
            if r.strikethrough { add(pango_attr_strikethrough_new(1)) }
            if r.kerning != 0 { add(pango_attr_letter_spacing_new(units(r.kerning))) }
            if r.baselineOffset != 0 { add(pango_attr_rise_new(units(r.baselineOffset))) }
        }
        return list
    }

    /// The Pango description for a `CATextLayer.font` name at `size` points.
    static func fontDescription(_ name: String, size: Double) -> OpaquePointer {
        let (family, bold, italic) = fontFamily(name)
        let d = pango_font_description_new()!
        family.withCString { pango_font_description_set_family(d, $0) }
        if bold { pango_font_description_set_weight(d, PANGO_WEIGHT_BOLD) }
        if italic { pango_font_description_set_style(d, PANGO_STYLE_ITALIC) }
        pango_font_description_set_absolute_size(d, size * Double(PANGO_SCALE))
        return d
    }

    /// The fontconfig family for a font name and whether its suffix asks for bold or italic.
    public static func fontFamily(_ name: String) -> (family: String, bold: Bool, italic: Bool) {
        var base = Substring(name.trimmingSpaces)
        var bold = false, italic = false
        if let dash = base.lastIndex(of: "-") {
            let suffix = base[base.index(after: dash)...].lowercased()
            let styles: [String: (Bool, Bool)] = [
                "bold": (true, false), "italic": (false, true), "oblique": (false, true),
                "bolditalic": (true, true), "boldoblique": (true, true), "regular": (false, false),
                "roman": (false, false),
            ]
            if let s = styles[suffix] {
                (bold, italic) = s
                base = base[..<dash]
            }
        }
        let generic: [String: String] = [
            "helvetica": "sans-serif", "helvetica neue": "sans-serif", "helveticaneue": "sans-serif",
            "arial": "sans-serif", "arialmt": "sans-serif", ".applesystemuifont": "sans-serif",
            "system": "sans-serif", "sf pro": "sans-serif", "times": "serif", "times new roman": "serif",
            "timesnewromanpsmt": "serif", "courier": "monospace", "courier new": "monospace", "menlo": "monospace",
        ]
        let key = base.lowercased()
        if base.isEmpty { return ("sans-serif", bold, italic) }
        return (generic[key] ?? String(base), bold, italic)
    }
}

extension String {
    var trimmingSpaces: Substring {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
