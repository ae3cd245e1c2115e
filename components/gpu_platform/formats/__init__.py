"""Grammars of values the library reads from upstream formats, each parsed as its owner parses it: IPv4 networks
(``network``), OpenSSH public keys and ``authorized_keys`` lines (``ssh``), Docker's published ports (``ports``)
and host names given where a URL is not wanted (``hosts``). Pure functions on strings: no cloud, no setting."""
