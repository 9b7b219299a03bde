//! Rounding an exact magnitude to a multiple of a power of two, in the five modes of the
//! specification.

use serde::{Deserialize, Serialize};

/// How a value that the target cannot hold exactly is rounded (the `rounding` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rounding {
    /// To the nearest value; ties to the one whose last digit is even (IEEE 754
    /// `roundTiesToEven`). The default.
    #[default]
    NearestEven,
    /// Towards zero (truncation).
    TowardsZero,
    /// Towards +Infinity (ceiling).
    TowardsPositive,
    /// Towards -Infinity (floor).
    TowardsNegative,
    /// To the nearest value; ties away from zero.
    NearestAway,
}

impl Rounding {
    /// Every mode, in the specification's order.
    pub const ALL: [Self; 5] = [
        Self::NearestEven,
        Self::TowardsZero,
        Self::TowardsPositive,
        Self::TowardsNegative,
        Self::NearestAway,
    ];

    /// The JSON name.
    pub fn name(self) -> &'static str {
        match self {
            Self::NearestEven => "nearest-even",
            Self::TowardsZero => "towards-zero",
            Self::TowardsPositive => "towards-positive",
            Self::TowardsNegative => "towards-negative",
            Self::NearestAway => "nearest-away",
        }
    }
}

/// Where the discarded part of a magnitude lies between the two candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Discarded {
    Nothing,
    BelowHalf,
    Half,
    AboveHalf,
}

/// Rounds the magnitude `significand × 2^exponent` to an integer multiple `kept` of
/// `2^quantum`, and says whether that was inexact. The caller guarantees the result fits in
/// 128 bits (`exponent - quantum + bit_length(significand) <= 127`). `negative` is the sign
/// of the value (directed modes depend on it); `is_odd(kept)` says whether the lower
/// candidate counts as odd for ties to even.
pub fn round_magnitude(
    negative: bool,
    significand: u64,
    exponent: i32,
    quantum: i32,
    rounding: Rounding,
    is_odd: impl Fn(u128) -> bool,
) -> (u128, bool) {
    let value = u128::from(significand);
    let shift = i64::from(exponent) - i64::from(quantum);
    if shift >= 0 {
        return (value << shift.unsigned_abs(), false);
    }
    let right = shift.unsigned_abs();
    let (kept, discarded) = if right >= 128 {
        // value < 2^64 <= 2^(right - 1): strictly below half of the quantum.
        (
            0,
            if value == 0 {
                Discarded::Nothing
            } else {
                Discarded::BelowHalf
            },
        )
    } else {
        let kept = value >> right;
        let remainder = value & ((1u128 << right) - 1);
        let half = 1u128 << (right - 1);
        let discarded = match remainder.cmp(&half) {
            _ if remainder == 0 => Discarded::Nothing,
            std::cmp::Ordering::Less => Discarded::BelowHalf,
            std::cmp::Ordering::Equal => Discarded::Half,
            std::cmp::Ordering::Greater => Discarded::AboveHalf,
        };
        (kept, discarded)
    };
    let up = match (rounding, discarded) {
        (_, Discarded::Nothing)
        | (Rounding::TowardsZero, _)
        | (Rounding::NearestEven | Rounding::NearestAway, Discarded::BelowHalf) => false,
        (Rounding::TowardsPositive, _) => !negative,
        (Rounding::TowardsNegative, _) => negative,
        (Rounding::NearestEven | Rounding::NearestAway, Discarded::AboveHalf)
        | (Rounding::NearestAway, Discarded::Half) => true,
        (Rounding::NearestEven, Discarded::Half) => is_odd(kept),
    };
    (kept + u128::from(up), discarded != Discarded::Nothing)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(value: u64, right: i32, rounding: Rounding, negative: bool) -> u128 {
        round_magnitude(negative, value, 0, right, rounding, |k| k & 1 == 1).0
    }

    #[test]
    fn every_mode_on_quarters() {
        use Rounding::*;
        // value / 4 for value = 9 (2.25), 10 (2.5), 11 (2.75), 14 (3.5), 8 (2.0)
        let cases = [
            (9, [2, 2, 3, 2, 2]),
            (10, [2, 2, 3, 2, 3]),
            (11, [3, 2, 3, 2, 3]),
            (14, [4, 3, 4, 3, 4]),
            (8, [2, 2, 2, 2, 2]),
        ];
        for (value, expected) in cases {
            for (mode, want) in Rounding::ALL.into_iter().zip(expected) {
                assert_eq!(round(value, 2, mode, false), want, "{value}/4 {mode:?}");
            }
        }
        // Negative values: the magnitude goes down for towards-positive.
        assert_eq!(round(9, 2, TowardsPositive, true), 2);
        assert_eq!(round(9, 2, TowardsNegative, true), 3);
    }

    #[test]
    fn far_below_the_quantum() {
        assert_eq!(round(u64::MAX, 200, Rounding::TowardsPositive, false), 1);
        assert_eq!(round(u64::MAX, 200, Rounding::NearestAway, false), 0);
        assert_eq!(round(1 << 63, 64, Rounding::NearestEven, false), 0); // exactly half, even
        assert_eq!(round(1 << 63, 64, Rounding::NearestAway, false), 1);
        assert_eq!(round(0, 200, Rounding::TowardsPositive, false), 0);
    }

    #[test]
    fn names_round_trip_through_json() {
        for mode in Rounding::ALL {
            let json = serde_json::to_value(mode).expect("serialise");
            assert_eq!(json, mode.name());
            assert_eq!(
                serde_json::from_value::<Rounding>(json).expect("parse"),
                mode
            );
        }
    }
}
