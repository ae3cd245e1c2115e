"""GPU node pool components per cloud; each imports its cloud SDK only when a pool is created."""
