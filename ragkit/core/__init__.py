"""The ground floor: value types, errors, checks and option declarations, the component registry, hashing,
files and locks, progress. Imports nothing else of ragkit."""
