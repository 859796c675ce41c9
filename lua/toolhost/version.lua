-- toolhost's version, the one home of it: CMakeLists.txt reads this line into
-- project(VERSION), which the binary prints with --version; :checkhealth compares the two.
return "0.1.0"
