# Internet Topology Zoo (www.topology-zoo.org), Arpanet19728.gml: ARPANET in August 1972,
# 29 nodes, 32 links. Knight et al., IEEE JSAC 29(9), 2011. Licence: CC BY-SA 3.0.
# Copied unchanged below this header from github.com/TL-System/ns.py,
# ns/topos/internet_topo_zoo/Arpanet19728.gml (commit b50c08a).
graph [
  DateObtained "25/01/11"
  GeoLocation "United States"
  GeoExtent "Country"
  Network "ARPANET"
  Provenance "Secondary"
  Note "Locations from http://www.ietf.org/rfc/rfc0353"
  Source "http://som.csudh.edu/cis/lpress/history/arpamaps/"
  Version "1.0"
  Type "REN"
  DateType "Historic"
  Backbone 1
  Commercial 0
  label "Arpanet19728"
  ToolsetVersion "0.3.34dev-20120328"
  Customer 0
  IX 0
  SourceGitVersion "e278b1b"
  DateModifier "="
  DateMonth "08"
  LastAccess "25/01/11"
  Access 0
  Layer "ARPA"
  Creator "Topology Zoo Toolset"
  Developed 1
  Transit 0
  NetworkDate "1972_08"
  DateYear "1972"
  LastProcessed "2011_09_01"
  Testbed 0
  node [
    id 0
    label "ILLINOIS"
    Country "United States"
    Longitude -89.64371
    Internal 1
    Latitude 39.80172
  ]
  node [
    id 1
    label "MITRE"
    Country "United States"
    Longitude -70.9342
    Internal 1
    Latitude 41.63622
    type "&quot;T&quot; Node"
  ]
  node [
    id 2
    label "CARNEGIE"
    Country "United States"
    Longitude -79.94283
    Internal 1
    Latitude 40.44118
  ]
  node [
    id 3
    label "CASE"
    Country "United States"
    Longitude -81.59707
    Internal 1
    Latitude 41.5045
  ]
  node [
    id 4
    label "ETAC"
    Country "United States"
    Longitude -77.03637
    Internal 1
    Latitude 38.89511
  ]
  node [
    id 5
    label "AFGWC"
    Country "United States"
    Longitude -89.85035
    Internal 1
    Latitude 38.5427
    type "&quot;T&quot; Node"
  ]
  node [
    id 6
    label "BBN"
    Country "United States"
    Longitude -71.10561
    Internal 1
    Latitude 42.3751
    type "&quot;T&quot; Node"
  ]
  node [
    id 7
    label "NBS"
    Country "United States"
    Longitude -77.20137
    Internal 1
    Latitude 39.14344
    type "&quot;T&quot; Node"
  ]
  node [
    id 8
    label "Tinker"
    Country "United States"
    Longitude -97.38663
    Internal 1
    Latitude 35.41474
  ]
  node [
    id 9
    label "AMES"
    Country "United States"
    Longitude -122.08385
    Internal 1
    Latitude 37.38605
    type "&quot;T&quot; Node"
  ]
  node [
    id 10
    label "ARPA"
    Country "United States"
    Longitude -77.10428
    Internal 1
    Latitude 38.88101
    type "&quot;T&quot; Node"
  ]
  node [
    id 11
    label "RADC"
    Country "United States"
    Longitude -75.45573
    Internal 1
    Latitude 43.21285
  ]
  node [
    id 12
    label "McClellan"
    Country "United States"
    Longitude -121.37217
    Internal 1
    Latitude 38.68574
  ]
  node [
    id 13
    label "RAND"
    Country "United States"
    Longitude -118.49119
    Internal 1
    Latitude 34.01945
  ]
  node [
    id 14
    label "AMES"
    Country "United States"
    Longitude -122.08385
    Internal 1
    Latitude 37.38605
  ]
  node [
    id 15
    label "NOAA {[Boulder, Colorado}}"
    Country "United States"
    Longitude -105.49222
    Internal 1
    Latitude 39.90776
    type "&quot;T&quot; Node"
  ]
  node [
    id 16
    label "SAAC"
    Country "United States"
    Longitude -77.04692
    Internal 1
    Latitude 38.80484
    type "&quot;T&quot; Node"
  ]
  node [
    id 17
    label "BELVOIR"
    Country "United States"
    Longitude -77.14589
    Internal 1
    Latitude 38.7119
  ]
  node [
    id 18
    label "SDC"
    Country "United States"
    Longitude -118.49119
    Internal 1
    Latitude 34.01945
  ]
  node [
    id 19
    label "BBN"
    Country "United States"
    Longitude -71.10561
    Internal 1
    Latitude 42.3751
  ]
  node [
    id 20
    label "HARVARD"
    Country "United States"
    Longitude -71.11644
    Internal 1
    Latitude 42.37843
  ]
  node [
    id 21
    label "SRI"
    Country "United States"
    Longitude -122.18219
    Internal 1
    Latitude 37.45383
  ]
  node [
    id 22
    label "UCSB"
    Country "United States"
    Longitude -119.69819
    Internal 1
    Latitude 34.42083
  ]
  node [
    id 23
    label "UCLA"
    Country "United States"
    Longitude -118.24368
    Internal 1
    Latitude 34.05223
  ]
  node [
    id 24
    label "Stanford"
    Country "United States"
    Longitude -122.14302
    Internal 1
    Latitude 37.44188
  ]
  node [
    id 25
    label "USC"
    Country "United States"
    Longitude -118.24368
    Internal 1
    Latitude 34.05223
    type "&quot;T&quot; Node"
  ]
  node [
    id 26
    label "UTAH"
    Country "United States"
    Longitude -111.89105
    Internal 1
    Latitude 40.76078
  ]
  node [
    id 27
    label "Lincoln"
    Country "United States"
    Longitude -71.2245
    Internal 1
    Latitude 42.44732
  ]
  node [
    id 28
    label "MIT"
    Country "United States"
    Longitude -71.09172
    Internal 1
    Latitude 42.35954
  ]
  edge [
    source 0
    target 26
    id "e10"
  ]
  edge [
    source 0
    target 28
    id "e14"
  ]
  edge [
    source 1
    target 16
    id "e23"
  ]
  edge [
    source 1
    target 10
    id "e24"
  ]
  edge [
    source 2
    target 17
    id "e19"
  ]
  edge [
    source 2
    target 3
    id "e20"
  ]
  edge [
    source 3
    target 11
    id "e21"
  ]
  edge [
    source 3
    target 5
    id "e22"
  ]
  edge [
    source 4
    target 8
    id "e26"
  ]
  edge [
    source 4
    target 10
    id "e27"
  ]
  edge [
    source 4
    target 7
    id "e25"
  ]
  edge [
    source 5
    target 15
    id "e28"
  ]
  edge [
    source 6
    target 19
    id "e17"
  ]
  edge [
    source 6
    target 28
    id "e15"
  ]
  edge [
    source 7
    target 20
    id "e18"
  ]
  edge [
    source 8
    target 13
    id "e29"
  ]
  edge [
    source 9
    target 21
    id "e1"
  ]
  edge [
    source 9
    target 14
    id "e30"
  ]
  edge [
    source 11
    target 27
    id "e12"
  ]
  edge [
    source 12
    target 26
    id "e11"
  ]
  edge [
    source 12
    target 21
    id "e2"
  ]
  edge [
    source 13
    target 24
    id "e7"
  ]
  edge [
    source 13
    target 23
    id "e4"
  ]
  edge [
    source 14
    target 24
    id "e6"
  ]
  edge [
    source 15
    target 25
    id "e9"
  ]
  edge [
    source 16
    target 17
    id "e31"
  ]
  edge [
    source 18
    target 25
    id "e8"
  ]
  edge [
    source 18
    target 23
    id "e5"
  ]
  edge [
    source 19
    target 20
    id "e16"
  ]
  edge [
    source 21
    target 22
    id "e0"
  ]
  edge [
    source 22
    target 23
    id "e3"
  ]
  edge [
    source 27
    target 28
    id "e13"
  ]
]
