# Five German cities joined by six fibres: a small graph for examples/graph_network.toml.
# Coordinates are the cities' centres (degrees); burstlab computes the fibre lengths as
# great-circle km from them. Written for burstlab.
graph [
  label "germany5"
  node [ id 0 label "Hamburg"   Latitude 53.5511 Longitude 9.9937 ]
  node [ id 1 label "Berlin"    Latitude 52.5200 Longitude 13.4050 ]
  node [ id 2 label "Cologne"   Latitude 50.9375 Longitude 6.9603 ]
  node [ id 3 label "Frankfurt" Latitude 50.1109 Longitude 8.6821 ]
  node [ id 4 label "Munich"    Latitude 48.1351 Longitude 11.5820 ]
  edge [ source 0 target 1 ]
  edge [ source 0 target 2 ]
  edge [ source 1 target 3 ]
  edge [ source 1 target 4 ]
  edge [ source 2 target 3 ]
  edge [ source 3 target 4 ]
]
