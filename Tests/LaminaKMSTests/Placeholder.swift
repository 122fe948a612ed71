// Placeholder until the KMS VM tests land.
