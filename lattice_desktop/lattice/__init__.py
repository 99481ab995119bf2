"""lattice"""
