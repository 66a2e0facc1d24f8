# includes itself
include "./fuzz.f"
