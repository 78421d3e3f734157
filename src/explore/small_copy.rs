//! Copies of a few bytes without a call: state vectors are built from runs of one to a dozen
//! bytes (a location, a variable, a channel handle), and a copy of a length known only at
//! run time is a call to `memcpy`, which costs more than the bytes do. A run of up to 16
//! bytes is copied as two fixed-size moves that overlap (each writes the source's bytes),
//! which the compiler inlines; longer ones go to `copy_from_slice`.

/// Copies `src` into `dst` (the same length).
#[inline(always)]
pub fn copy(dst: &mut [u8], src: &[u8]) {
    let n = dst.len();
    debug_assert_eq!(n, src.len());
    match n {
        0 => {}
        1 => dst[0] = src[0],
        2..=3 => {
            dst[..2].copy_from_slice(&src[..2]);
            dst[n - 2..].copy_from_slice(&src[n - 2..n]);
        }
        4..=7 => {
            dst[..4].copy_from_slice(&src[..4]);
            dst[n - 4..].copy_from_slice(&src[n - 4..n]);
        }
        8..=16 => {
            dst[..8].copy_from_slice(&src[..8]);
            dst[n - 8..].copy_from_slice(&src[n - 8..n]);
        }
        _ => dst.copy_from_slice(src),
    }
}

/// Appends `src` to `v`.
#[inline(always)]
pub fn extend(v: &mut Vec<u8>, src: &[u8]) {
    let at = v.len();
    v.resize(at + src.len(), 0);
    copy(&mut v[at..], src);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_every_length_exactly() {
        let src: Vec<u8> = (1..=40).collect();
        for n in 0..=40 {
            let mut dst = [0xeeu8; 44];
            copy(&mut dst[2..2 + n], &src[..n]);
            assert_eq!(&dst[2..2 + n], &src[..n], "{n}");
            assert!(
                dst[..2].iter().chain(&dst[2 + n..]).all(|&b| b == 0xee),
                "{n}"
            );
            let mut v = vec![7u8; 3];
            extend(&mut v, &src[..n]);
            assert_eq!(&v[3..], &src[..n], "{n}");
            assert_eq!(&v[..3], &[7, 7, 7]);
        }
    }
}
