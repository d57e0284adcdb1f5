//! Optical burst switching: assembly at the ingress edge, wavelength scheduling in the
//! bufferless core, disassembly at the egress edge.
