//! Fast paths for common pairs of types (to come); `apply` returns `false` to take the exact
//! element-by-element path.

use zarr_codec::Result;

use crate::plan::CastPlan;

/// Runs a specialised kernel for the plan's pair of types, if there is one.
#[allow(clippy::unnecessary_wraps)] // kernels report element errors once they exist
pub(crate) fn apply(plan: &CastPlan, input: &[u8], output: &mut [u8]) -> Result<bool> {
    let _ = (plan, input, output);
    Ok(false)
}
