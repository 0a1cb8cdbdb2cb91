// The demo's leaderboard, built into the binary so that `synctable demo` works from any folder.
// Generated from Fixtures/demo/leaderboard.json (ASCII only: other characters as \u{...});
// DemoDataTests keeps the two equal, and rewrites this file with SYNCTABLE_UPDATE_DEMO_DATA=1.

/// The text of Fixtures/demo/leaderboard.json.
let demoLeaderboard = """
{
  \"title\": \"SyncTable demo leaderboard\",
  \"players\": {
    \"-NjEtM8SIm58Bi6Q3Arp\": {
      \"name\": \"Ada Lovelace\",
      \"score\": 1244,
      \"level\": 16,
      \"country\": \"\u{1f1ec}\u{1f1e7} UK\",
      \"online\": true,
      \"metrics\": {
        \"views\": 55642,
        \"likes\": 484
      }
    },
    \"-NjEtNGqER6m5R4G_pHE\": {
      \"name\": \"Grace Hopper\",
      \"score\": 9453,
      \"level\": 20,
      \"country\": \"\u{1f1fa}\u{1f1f8} US\",
      \"online\": false,
      \"metrics\": {
        \"views\": 89391,
        \"likes\": 1480
      }
    },
    \"-NjEtNU2NjB76Pzqcvui\": {
      \"name\": \"Linus Torvalds\",
      \"score\": 5011,
      \"level\": 16,
      \"country\": \"\u{1f1eb}\u{1f1ee} Finland\",
      \"online\": false,
      \"metrics\": {
        \"views\": 91618,
        \"likes\": 1999
      }
    },
    \"-NjEtNdXazftZ8EpKfIy\": {
      \"name\": \"Mallory \\u001b[31mRED\\u001b[0m\u{202e}evil\",
      \"score\": 7009,
      \"level\": 3,
      \"country\": \"\u{1f1ef}\u{1f1f5} \u{65e5}\u{672c}\",
      \"online\": false,
      \"metrics\": {
        \"views\": 10173,
        \"likes\": 4571
      }
    },
    \"-NjEtOmtcfgzu7AXw76b\": {
      \"name\": \"Ken Thompson\",
      \"score\": 9569,
      \"level\": 44,
      \"country\": \"\u{1f1f3}\u{1f1f1} Nederland\",
      \"online\": false,
      \"metrics\": {
        \"views\": 37302,
        \"likes\": 3160
      }
    },
    \"-NjEtPUJ1vhKDz6QZFUm\": {
      \"name\": \"Zo\u{eb} \u{5c71}\u{7530} \u{592a}\u{90ce}\",
      \"score\": 6505,
      \"level\": 59,
      \"country\": \"\u{1f1e9}\u{1f1ea} Deutschland\",
      \"online\": false,
      \"metrics\": {
        \"views\": 10561,
        \"likes\": 1362
      }
    },
    \"-NjEtQNonYGrYphkSI9L\": {
      \"name\": \"Dennis Ritchie\",
      \"score\": 2578,
      \"level\": 15,
      \"country\": \"\u{1f1eb}\u{1f1f7} France\",
      \"online\": false,
      \"metrics\": {
        \"views\": 1581,
        \"likes\": 3972
      }
    },
    \"-NjEtRZEMWZ-HpjcF5um\": {
      \"name\": \"Frances Allen\",
      \"score\": 6621,
      \"level\": 26,
      \"country\": \"\u{1f1e8}\u{1f1ed} Schweiz\",
      \"online\": true,
      \"metrics\": {
        \"views\": 63114,
        \"likes\": 3280
      }
    },
    \"-NjEtRgCN7PsJDf5C-IB\": {
      \"name\": \"Edsger Dijkstra\",
      \"score\": 6057,
      \"level\": 40,
      \"country\": \"\u{1f1e8}\u{1f1e6} Canada\",
      \"online\": true,
      \"metrics\": {
        \"views\": 27256,
        \"likes\": 3082
      }
    },
    \"-NjEtRzDVgiwEDyvxxb9\": {
      \"name\": \"Radia Perlman\",
      \"score\": 2461,
      \"level\": 7,
      \"country\": \"\u{1f1ee}\u{1f1f3} \u{92d}\u{93e}\u{930}\u{924}\",
      \"online\": false,
      \"metrics\": {
        \"views\": 97039,
        \"likes\": 2168
      }
    },
    \"-NjEtSwUJ1PiH2aAWiKh\": {
      \"name\": \"Donald Knuth\",
      \"score\": 3750,
      \"level\": 35,
      \"country\": \"\u{1f1ec}\u{1f1e7} UK\",
      \"online\": false,
      \"metrics\": {
        \"views\": 65889,
        \"likes\": 2700
      }
    },
    \"-NjEtTO2NTnSOzh22YwW\": {
      \"name\": \"Hedy Lamarr\",
      \"score\": 3272,
      \"level\": 45,
      \"country\": \"\u{1f1fa}\u{1f1f8} US\",
      \"online\": false,
      \"metrics\": {
        \"views\": 45125,
        \"likes\": 3663
      }
    },
    \"-NjEtU4ni9RCSwOfPx-x\": {
      \"name\": \"Alan Turing\",
      \"score\": 5736,
      \"level\": 52,
      \"country\": \"\u{1f1eb}\u{1f1ee} Finland\",
      \"online\": false,
      \"metrics\": {
        \"views\": 86584,
        \"likes\": 982
      }
    },
    \"-NjEtUrXOxLreAmvn9JK\": {
      \"name\": \"Katherine Johnson\",
      \"score\": 2181,
      \"level\": 2,
      \"country\": \"\u{1f1ef}\u{1f1f5} \u{65e5}\u{672c}\",
      \"online\": true,
      \"metrics\": {
        \"views\": 60994,
        \"likes\": 1197
      }
    },
    \"-NjEtW2owgIF10CGrNQ2\": {
      \"name\": \"Tim Berners-Lee\",
      \"score\": 4226,
      \"level\": 14,
      \"country\": \"\u{1f1f3}\u{1f1f1} Nederland\",
      \"online\": true,
      \"metrics\": {
        \"views\": 31527,
        \"likes\": 4804
      }
    },
    \"-NjEtWhYWpF6hupFI1sM\": {
      \"name\": \"Sophie Wilson\",
      \"score\": 164,
      \"level\": 50,
      \"country\": \"\u{1f1e9}\u{1f1ea} Deutschland\",
      \"online\": false,
      \"metrics\": {
        \"views\": 22589,
        \"likes\": 1159
      }
    },
    \"-NjEtXe9E6dxC6UNY4Bt\": {
      \"name\": \"Yukihiro Matsumoto\",
      \"score\": 9303,
      \"level\": 2,
      \"country\": \"\u{1f1eb}\u{1f1f7} France\",
      \"online\": false,
      \"metrics\": {
        \"views\": 8305,
        \"likes\": 3631
      }
    },
    \"-NjEtYIqOYtxUWOtGpEm\": {
      \"name\": \"Guido van Rossum\",
      \"score\": 7343,
      \"level\": 21,
      \"country\": \"\u{1f1e8}\u{1f1ed} Schweiz\",
      \"online\": true,
      \"metrics\": {
        \"views\": 31541,
        \"likes\": 3508
      }
    },
    \"-NjEtYSDQaEIiHVGvRBm\": {
      \"name\": \"Bjarne Stroustrup\",
      \"score\": 8083,
      \"level\": 11,
      \"country\": \"\u{1f1e8}\u{1f1e6} Canada\",
      \"online\": false,
      \"metrics\": {
        \"views\": 29322,
        \"likes\": 1322
      }
    },
    \"-NjEtZJTnfpOhcAi1fus\": {
      \"name\": \"Anders Hejlsberg\",
      \"score\": 396,
      \"level\": 25,
      \"country\": \"\u{1f1ee}\u{1f1f3} \u{92d}\u{93e}\u{930}\u{924}\",
      \"online\": true,
      \"metrics\": {
        \"views\": 81779,
        \"likes\": 2420
      }
    },
    \"-NjEt_L27DSC9WX4MXFq\": {
      \"name\": \"Chris Lattner\",
      \"score\": 4337,
      \"level\": 26,
      \"country\": \"\u{1f1ec}\u{1f1e7} UK\",
      \"online\": true,
      \"metrics\": {
        \"views\": 67473,
        \"likes\": 4674
      }
    },
    \"-NjEtaKMdAY6Mq8X1AW9\": {
      \"name\": \"Leslie Lamport\",
      \"score\": 3743,
      \"level\": 5,
      \"country\": \"\u{1f1fa}\u{1f1f8} US\",
      \"online\": true,
      \"metrics\": {
        \"views\": 15948,
        \"likes\": 3717
      }
    },
    \"-NjEtaLqfpXF4TDJW5MO\": {
      \"name\": \"John McCarthy\",
      \"score\": 5211,
      \"level\": 41,
      \"country\": \"\u{1f1eb}\u{1f1ee} Finland\",
      \"online\": true,
      \"metrics\": {
        \"views\": 99548,
        \"likes\": 1686
      }
    },
    \"-NjEtavytLXg1V301NwU\": {
      \"name\": \"Jean Sammet\",
      \"score\": 7424,
      \"level\": 7,
      \"country\": \"\u{1f1ef}\u{1f1f5} \u{65e5}\u{672c}\",
      \"online\": false,
      \"metrics\": {
        \"views\": 85210,
        \"likes\": 3540
      }
    },
    \"-NjEtbvLmbQSfOGng5F0\": {
      \"name\": \"Niklaus Wirth\",
      \"score\": 1258,
      \"level\": 41,
      \"country\": \"\u{1f1f3}\u{1f1f1} Nederland\",
      \"online\": false,
      \"metrics\": {
        \"views\": 33501,
        \"likes\": 3528
      }
    },
    \"-NjEtcFF69kZU_4uMJXt\": {
      \"name\": \"Annie Easley\",
      \"score\": 159,
      \"level\": 17,
      \"country\": \"\u{1f1e9}\u{1f1ea} Deutschland\",
      \"online\": true,
      \"metrics\": {
        \"views\": 43113,
        \"likes\": 4481
      }
    },
    \"-NjEtctfU3bQhM-ek9wY\": {
      \"name\": \"Whitfield Diffie\",
      \"score\": 8337,
      \"level\": 42,
      \"country\": \"\u{1f1eb}\u{1f1f7} France\",
      \"online\": true,
      \"metrics\": {
        \"views\": 66156,
        \"likes\": 40
      }
    },
    \"-NjEtd4JWAHn4m1aaS9I\": {
      \"name\": \"Carol Shaw\",
      \"score\": 9874,
      \"level\": 25,
      \"country\": \"\u{1f1e8}\u{1f1ed} Schweiz\",
      \"online\": false,
      \"metrics\": {
        \"views\": 94460,
        \"likes\": 4048
      }
    },
    \"-NjEtdNSZH4qG1S924Gi\": {
      \"name\": \"Shafi Goldwasser\",
      \"score\": 1818,
      \"level\": 25,
      \"country\": \"\u{1f1e8}\u{1f1e6} Canada\",
      \"online\": false,
      \"metrics\": {
        \"views\": 73207,
        \"likes\": 415
      }
    },
    \"-NjEtdPsUyW-u7A7wV8W\": {
      \"name\": \"Tony Hoare\",
      \"score\": 3946,
      \"level\": 47,
      \"country\": \"\u{1f1ee}\u{1f1f3} \u{92d}\u{93e}\u{930}\u{924}\",
      \"online\": false,
      \"metrics\": {
        \"views\": 30243,
        \"likes\": 3771
      }
    }
  }
}
"""
