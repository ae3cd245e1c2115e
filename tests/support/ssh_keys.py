"""Real OpenSSH public keys for the tests (generated with ``ssh-keygen`` for them; no private key is kept):
the checks decode a key's base64 body, so a made-up ``AAAA...`` string is not a key."""

ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDnoJqakvlmdVoKCH+CAs0yOiRhzkCet6cSZ4iahUzoW ops@example"
RSA_2048 = (
    "ssh-rsa "
    "AAAAB3NzaC1yc2EAAAADAQABAAABAQCjFmrAdiG9yoGebkDkmYvh/kk9oQ1bUgY78WdlicmlPhCsfyj2+nbHkIuzXimJefQD/lmJ"
    "trJz4pNeS3ej0TXsU/JdbM6KbdepjoYtlmF62jQktCOZT4mw3QCubyCzOqep/XHpXszOvjQ3wzXibegO70Yf3VAh6oTIH9MM8GVC"
    "zoQkh8QiJWtUXsxjMIcqN9nAdKCva0y4Z8EuPzYcMFM+SgY03R6dUxFWPUKvuovItvU8FSxkQRDx1+bsYqd8dG19OarBB+yBA3fP"
    "jQZ/fm0S41wXiW0K+xU//JdB3IxXc6F9c2GwrUqBsQLCtOkY0Q5yeGj9zkIKKP2a/Ofji00P"
    " ops@example"
)
RSA_1024 = (
    "ssh-rsa "
    "AAAAB3NzaC1yc2EAAAADAQABAAAAgQDZgfjU6kZrn7OzFlnZR4kHfrbIn13k8UYnqs01jRQphhUR9TR1tV++fml3pQNUAKrgE4WE"
    "sqVyth79o9pzNk8BKpjxuvivAXvUNqCYI77S6oDz7P0rp2K8dAPbXZEb6GvldFKFnSbtSlP9XZ4TPSxkRFGx1LcMpsKkRSrbNIOe"
    "kQ=="
    " old@example"
)
ECDSA_P256 = (
    "ecdsa-sha2-nistp256 "
    "AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBHsIO3fE+lw5VqAntB/ERvGu6peOBISJ01b4p3eFHrOjRMDi"
    "WS2Ldg/wDzPcWwPkulGAUtumNdjXnBAayXlGDNQ="
    " ec@example"
)
