"""Talking to brokers: request/response headers, size-prefixed frames and a correlator, an example client."""
