def pytest_configure(config):  # type: ignore[no-untyped-def]
    config.addinivalue_line(
        "markers",
        "network: builds a package with pip's isolated build, which fetches setuptools from the "
        "package index (deselect with -m 'not network' when offline)",
    )
