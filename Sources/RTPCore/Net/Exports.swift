// Endpoint is RTPCore's vocabulary as much as SystemIO's: whoever imports RTPCore has it.
@_exported import NetworkAddress
