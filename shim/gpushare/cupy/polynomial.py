"""``cupy.polynomial``: not served yet (see README, "What is not supported yet")."""


def __getattr__(name: str):
    raise NotImplementedError(f"gpushare: cupy.polynomial.{name} is not supported yet")
