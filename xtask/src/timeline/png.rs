//! The timeline's SVG rasterised to PNG with resvg, at the SVG's own size. The labels need a
//! font: resvg looks for none by itself here, so DejaVu Sans (Debian's `fonts-dejavu-core`,
//! which `cargo xtask deps` installs) is loaded from its file, and a missing file is an error
//! naming the package rather than a picture without text.

use std::path::Path;

use anyhow::{Context, anyhow};
use resvg::{tiny_skia, usvg};

use super::svg::FONT_FAMILY;

/// DejaVu Sans' regular and bold faces on Debian.
pub const FONT_FILES: [&str; 2] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
];

/// The Debian package that ships [`FONT_FILES`].
pub const FONT_PACKAGE: &str = "fonts-dejavu-core";

/// `svg` as PNG bytes.
pub fn render(svg: &str) -> anyhow::Result<Vec<u8>> {
    let mut opt = usvg::Options {
        font_family: FONT_FAMILY.to_owned(),
        ..usvg::Options::default()
    };
    for file in FONT_FILES {
        let data = std::fs::read(Path::new(file)).with_context(|| {
            format!(
                "{file}: the timeline's font (Debian package {FONT_PACKAGE}; `cargo xtask deps`)"
            )
        })?;
        opt.fontdb_mut().load_font_data(data);
    }
    let tree = usvg::Tree::from_str(svg, &opt).context("the timeline's SVG")?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| anyhow!("cannot allocate a {size:?} picture"))?;
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap.encode_png().context("encoding the timeline as PNG")
}
