"""Search players: determinised positions, compiled playouts, game equity and the Monte Carlo agent."""
