// placeholder: tests arrive with the simulation engine
