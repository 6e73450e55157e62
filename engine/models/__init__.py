"""Model folders: the bundle, its files and schema, the catalog, where things live, training words."""
