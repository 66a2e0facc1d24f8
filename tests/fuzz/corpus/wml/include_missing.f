include "/etc/passwd"
include "missing.f"
