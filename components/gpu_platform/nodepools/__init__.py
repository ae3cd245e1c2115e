"""Empty: kept only so the old module paths under ``gpu_platform.nodepools`` (now in ``gpu_platform.clouds.<cloud>``
and ``gpu_platform.addons.<add-on>``) still import, with a warning, until 0.3.0 (``gpu_platform._moved``,
docs/UPGRADE.md). Nothing may be added here."""
