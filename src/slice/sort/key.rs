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

/// `TypeId` of a type that need not be `'static`.
///
/// A type-erased `PhantomData<T>` answers `TypeId::of::<T>()` through a method that demands
/// `Self: 'static`; the trait object's lifetime bound is widened to `'static` to call it. This
/// is the technique of dtolnay's `typeid` crate.
///
/// Soundness: lifetimes are erased before code generation, so the method body is the same code
/// for every lifetime, and it touches no data (the receiver is a zero-sized `PhantomData`).
/// The answer is the `TypeId` of `T` with its lifetimes erased. Here it is compared with the
/// `TypeId` of a primitive that has no lifetime parameters; a type equal to such a primitive
/// after erasure *is* that primitive, so the cast in `try_radix_sort` is an identity.
/// `strings::byte_view` also compares it with `&'static str` and `&'static [u8]`, which
/// `&'a str` and `&'a [u8]` match for every `'a`: it reads such an element as a raw pointer
/// and claims no lifetime for it.
pub(super) fn type_id_of<T: ?Sized>() -> TypeId {
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

/// Whether `T` is exactly `U`, where `U` has no lifetime parameters.
#[inline]
pub(super) fn is_type<T, U: 'static>() -> bool {
    type_id_of::<T>() == TypeId::of::<U>()
}
