"""SimPhone: the embedded, deterministic simulated phone (see docs/simphone.md)."""
