//! The keys the radix sorts take: [`RadixKey`], primitives whose order is that of an
//! unsigned integer of their bits, and the recognition of such types behind a generic `T`.

use std::any::TypeId;
use std::marker::PhantomData;

/// A primitive whose order (natural, or `total_cmp` for floats) is the order of an unsigned
/// integer of its bits.
///
/// # Safety
///
/// Every initialised bit pattern of the type's size must be a valid value (the scratch buffer
/// holds zeros or keys of other types that earlier sorts left), and `bits` must be
/// injective (equal `bits` means identical keys, which is what lets one algorithm serve stable
/// and unstable sorts).
pub(super) unsafe trait RadixKey: Copy + Send + Sync + 'static {
    /// Order-preserving map to `u64`: `a < b` if and only if `a.bits() < b.bits()`.
    fn bits(self) -> u64;

    /// For floats, the value (exactly, as an `f64`), for the value-interpolating first pass;
    /// `None` for integers, whose bits are what a radix digit should look at.
    #[inline(always)]
    fn float_value(self) -> Option<f64> {
        None
    }
}

macro_rules! unsigned_key {
    ($($t:ty),*) => {$(
        // SAFETY: any bits are a valid integer; widening is injective.
        unsafe impl RadixKey for $t {
            #[inline(always)]
            fn bits(self) -> u64 {
                self as u64
            }
        }
    )*};
}
unsigned_key!(u8, u16, u32, u64, usize);

macro_rules! signed_key {
    ($($t:ty => $u:ty),*) => {$(
        // SAFETY: any bits are a valid integer; flipping a bit and widening are injective.
        unsafe impl RadixKey for $t {
            #[inline(always)]
            fn bits(self) -> u64 {
                // Flipping the sign bit maps two's complement order onto unsigned order.
                ((self as $u) ^ (1 << (<$u>::BITS - 1))) as u64
            }
        }
    )*};
}
signed_key!(i8 => u8, i16 => u16, i32 => u32, i64 => u64, isize => usize);

// SAFETY: any bits are a valid `f64`; the map below is a bijection on bit patterns.
unsafe impl RadixKey for f64 {
    /// The order of `f64::total_cmp`: negative numbers (sign bit set) have all bits flipped, so
    /// that a larger magnitude sorts lower; the rest get the sign bit set, above them all.
    #[inline(always)]
    fn bits(self) -> u64 {
        let bits = self.to_bits();
        bits ^ (((bits as i64 >> 63) as u64) | (1 << 63))
    }

    #[inline(always)]
    fn float_value(self) -> Option<f64> {
        Some(self)
    }
}

// SAFETY: as for `f64`.
unsafe impl RadixKey for f32 {
    /// The order of `f32::total_cmp`, as for `f64`.
    #[inline(always)]
    fn bits(self) -> u64 {
        let bits = self.to_bits();
        (bits ^ (((bits as i32 >> 31) as u32) | (1 << 31))) as u64
    }

    #[inline(always)]
    fn float_value(self) -> Option<f64> {
        Some(self as f64)
    }
}

/// `TypeId` of a type that need not be `'static`, with its lifetimes erased.
///
/// A type-erased `PhantomData<T>` answers `TypeId::of::<T>()` through a method that demands
/// `Self: 'static`; the trait object's lifetime bound is widened to `'static` to call it. This
/// is the technique of dtolnay's `typeid` crate. Lifetimes are erased before code generation,
/// so the method body is the same code for every lifetime, and it touches no data (the
/// receiver is a zero-sized `PhantomData`).
///
/// Private to this module: the answer means "`T` is `U`" only where `U` has no lifetime
/// parameters ([`LifetimeFree`]), and the casts below are the only uses of it that a cast
/// depends on.
fn type_id_of<T: ?Sized>() -> TypeId {
    trait NonStaticAny {
        fn type_id(&self) -> TypeId
        where
            Self: 'static;
    }
    impl<T: ?Sized> NonStaticAny for PhantomData<T> {
        fn type_id(&self) -> TypeId
        where
            Self: 'static,
        {
            TypeId::of::<T>()
        }
    }
    let phantom = PhantomData::<T>;
    let object: &dyn NonStaticAny = &phantom;
    // SAFETY: only the trait object's lifetime bound changes (same layout, same vtable); the
    // reference is used at once, while `phantom` lives, and the method reads nothing through
    // it. Why the result is meaningful is argued on this function.
    let object: &(dyn NonStaticAny + 'static) =
        unsafe { std::mem::transmute::<&dyn NonStaticAny, &(dyn NonStaticAny + 'static)>(object) };
    object.type_id()
}

/// Types without lifetime parameters, which the sorts recognise behind a generic `T`: a type
/// whose `TypeId` with lifetimes erased ([`type_id_of`]) is that of such a type *is* that type,
/// so the casts below change nothing. Sealed: implemented here, for these types only (a type
/// with a lifetime parameter cannot be added by mistake elsewhere).
pub(super) trait LifetimeFree: sealed::Sealed + 'static {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! lifetime_free {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl LifetimeFree for $t {}
    )*};
}
lifetime_free!(u8, i8, u16, i16, u32, i32, u64, i64, usize, isize, char, f32, f64);
lifetime_free!(String, Vec<u8>, Box<str>, Box<[u8]>);

/// Whether `T` is `U`.
#[inline]
pub(super) fn is_type<T, U: LifetimeFree>() -> bool {
    type_id_of::<T>() == TypeId::of::<U>()
}

/// `v` as a slice of `U`, if `T` is `U`.
#[inline]
pub(super) fn cast_slice_mut<T, U: LifetimeFree>(v: &mut [T]) -> Option<&mut [U]> {
    // SAFETY: `T` is `U` (`LifetimeFree`), so the cast changes nothing.
    is_type::<T, U>().then(|| unsafe { &mut *(v as *mut [T] as *mut [U]) })
}

/// `x` as a `U`, if `T` is `U`. The per-element form of [`cast_slice_mut`]: the test folds to
/// a constant for each `T`.
#[inline]
pub(super) fn cast_ref<T, U: LifetimeFree>(x: &T) -> Option<&U> {
    // SAFETY: as in `cast_slice_mut`.
    is_type::<T, U>().then(|| unsafe { &*(x as *const T).cast::<U>() })
}

/// `x` as a `U`, if `T` is `U`; else `x` back.
#[inline]
pub(super) fn cast_value<T, U: LifetimeFree>(x: T) -> Result<U, T> {
    if !is_type::<T, U>() {
        return Err(x);
    }
    let x = std::mem::ManuallyDrop::new(x);
    // SAFETY: `T` is `U`, so this moves the value unchanged (`x` is not dropped).
    Ok(unsafe { std::mem::transmute_copy::<T, U>(&x) })
}

/// Whether `F` is the type of the function item `item`, or a reference (of any lifetime) to
/// it, or to such a reference. A function item type names exactly one function; for one
/// without generic parameters (`f64::total_cmp`) it is `'static`. Nothing is cast on this
/// answer: it only chooses an algorithm.
pub(super) fn is_fn_item<F, G: 'static>(_item: G) -> bool {
    let f = type_id_of::<F>();
    f == TypeId::of::<G>() || f == TypeId::of::<&G>() || f == TypeId::of::<&&G>()
}

/// Whether `T` is `&str` or `&[u8]` of some lifetime ([`borrowed_bytes`]).
#[inline]
pub(super) fn is_borrowed_bytes<T>() -> bool {
    let id = type_id_of::<T>();
    id == TypeId::of::<&'static str>() || id == TypeId::of::<&'static [u8]>()
}

/// The bytes of `x`, if `T` is `&str` or `&[u8]` of any lifetime: the borrowed byte strings,
/// which no [`LifetimeFree`] type stands for. `T` is then `&'a str` (or `&'a [u8]`) for some
/// `'a` that outlives the borrow `'x` of `x` (`T: 'x`), so `x` is read as a `&'x &'x str`:
/// shared references are covariant, which makes that view a subtype of the real one; nothing
/// is claimed for longer than `'x`.
#[inline]
pub(super) fn borrowed_bytes<T>(x: &T) -> Option<&[u8]> {
    let id = type_id_of::<T>();
    if id == TypeId::of::<&'static str>() {
        // SAFETY: `T` is `&'a str` with `'a: 'x` (above); `&'x &'a str` to `&'x &'x str` only
        // shortens a lifetime inside a shared reference.
        return Some(unsafe { *(x as *const T).cast::<&str>() }.as_bytes());
    }
    if id == TypeId::of::<&'static [u8]>() {
        // SAFETY: as for `&str`.
        return Some(unsafe { *(x as *const T).cast::<&[u8]>() });
    }
    None
}
