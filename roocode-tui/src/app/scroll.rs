//! Scrolling the conversation without knowing its total height: the view either
//! follows the bottom, or is anchored at a line of a block (an entry, or the queued
//! messages at the end). Only the blocks passed over are rendered (and cached), so a
//! 5,000-message session scrolls and resizes at the cost of a screenful.

use crate::transcript::{RenderCtx, Transcript};

/// A line of the conversation: line `line` of block `block`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pos {
    pub block: usize,
    pub line: usize,
}

/// Where the conversation view is.
#[derive(Debug, Clone, Default)]
pub struct Scroll {
    /// The top line while the user has scrolled up; `None` follows the bottom.
    pub anchor: Option<Pos>,
    /// The top line drawn last.
    pub top: Pos,
    /// Height of the view drawn last.
    pub height: usize,
    /// The transcript's change counter when the view was anchored.
    pub seen_changes: u64,
}

impl Scroll {
    pub fn following(&self) -> bool {
        self.anchor.is_none()
    }

    /// Scrolled up and something changed since: the "↓ new output" hint.
    pub fn new_output(&self, t: &Transcript) -> bool {
        self.anchor.is_some() && t.changes() != self.seen_changes
    }

    /// Follows the bottom again.
    pub fn follow(&mut self) {
        self.anchor = None;
    }

    /// Scrolls `n` lines up.
    pub fn up(&mut self, t: &mut Transcript, ctx: &RenderCtx, n: usize) {
        if ctx.width == 0 {
            return;
        }
        let mut p = match self.anchor {
            Some(a) => a,
            None => bottom_top(t, ctx, self.height),
        };
        let mut n = n;
        while n > 0 {
            if p.line >= n {
                p.line -= n;
                break;
            }
            n -= p.line;
            if p.block == 0 {
                p.line = 0;
                break;
            }
            p.block -= 1;
            p.line = t.block_height(p.block, ctx);
        }
        if self.anchor.is_none() {
            self.seen_changes = t.changes();
        }
        self.anchor = Some(p);
    }

    /// Ctrl+Home: the start of the conversation.
    pub fn to_top(&mut self, t: &Transcript) {
        if self.anchor.is_none() {
            self.seen_changes = t.changes();
        }
        self.anchor = Some(Pos::default());
    }

    /// Scrolls `n` lines down; reaching the bottom follows it again.
    pub fn down(&mut self, t: &mut Transcript, ctx: &RenderCtx, n: usize) {
        let Some(mut p) = self.anchor else { return };
        p.line += n;
        let blocks = t.blocks();
        while p.block < blocks {
            let h = t.block_height(p.block, ctx);
            if p.line < h {
                break;
            }
            p.line -= h;
            p.block += 1;
        }
        if p.block >= blocks || self.fits_from(t, ctx, p).is_none() {
            self.anchor = None;
        } else {
            self.anchor = Some(p);
        }
    }

    /// The top line to draw a view of `height` lines; an anchor too close to the
    /// bottom to fill the view follows it again.
    pub fn window(&mut self, t: &mut Transcript, ctx: &RenderCtx, height: usize) -> Pos {
        self.height = height;
        if let Some(a) = self.anchor {
            let a = clamp(t, ctx, a);
            if let Some(top) = self.fits_from(t, ctx, a) {
                self.anchor = Some(top);
                self.top = top;
                return top;
            }
            self.anchor = None;
        }
        let top = bottom_top(t, ctx, height);
        self.top = top;
        top
    }

    /// `p` when more than a view of lines follows it (else the view shows the bottom
    /// and follows it), else `None`.
    fn fits_from(&self, t: &mut Transcript, ctx: &RenderCtx, p: Pos) -> Option<Pos> {
        let blocks = t.blocks();
        let mut rest = t.block_height(p.block, ctx).saturating_sub(p.line);
        let mut b = p.block + 1;
        while rest <= self.height && b < blocks {
            rest += t.block_height(b, ctx);
            b += 1;
        }
        (rest > self.height).then_some(p)
    }
}

/// The top line of a view of `height` lines showing the end of the conversation
/// (the start when it is shorter than the view).
fn bottom_top(t: &mut Transcript, ctx: &RenderCtx, height: usize) -> Pos {
    let mut need = height;
    let mut b = t.blocks();
    let mut top = Pos::default();
    while b > 0 && need > 0 {
        b -= 1;
        let h = t.block_height(b, ctx);
        if h >= need {
            top = Pos {
                block: b,
                line: h - need,
            };
            need = 0;
        } else {
            need -= h;
            top = Pos { block: b, line: 0 };
        }
    }
    top
}

/// `p` moved onto an existing line (blocks shrink on resize and expansion).
fn clamp(t: &mut Transcript, ctx: &RenderCtx, mut p: Pos) -> Pos {
    let blocks = t.blocks();
    if p.block >= blocks {
        return Pos {
            block: blocks.saturating_sub(1),
            line: 0,
        };
    }
    let h = t.block_height(p.block, ctx);
    if p.line >= h {
        p.line = h.saturating_sub(1);
    }
    p
}
