from django.urls import path

from games import views

urlpatterns = [
    path("", views.home, name="home"),
    path("dashboard/", views.dashboard, name="dashboard"),
    path("dashboard/finished/", views.finished_matches, name="finished_matches"),
    path("dashboard/count/", views.my_matches_link, name="my_matches_link"),
    path("lobby/", views.lobby, name="lobby"),
    path("new/<slug:slug>/", views.match_new, name="match_new"),
    path("games/<slug:slug>/", views.game_page, name="game"),
    path("games/<slug:slug>/rules/", views.game_rules, name="game_rules"),
    path("players/<str:username>/", views.player_page, name="player"),
    path("accounts/profile/vacation/", views.vacation, name="vacation"),  # on the profile page, as its clocks
    path("matches/<int:pk>/", views.match_detail, name="match_detail"),
    path("matches/<int:pk>/poll/", views.match_poll, name="match_poll"),
    path("matches/<int:pk>/move/", views.match_move, name="match_move"),
    path("matches/<int:pk>/take-back/", views.match_take_back, name="match_take_back"),
    path("matches/<int:pk>/replay/", views.match_replay, name="match_replay"),
    path("matches/<int:pk>/join/", views.match_join, name="match_join"),
    path("matches/<int:pk>/accept/", views.match_accept, name="match_accept"),
    path("matches/<int:pk>/decline/", views.match_decline, name="match_decline"),
    path("matches/<int:pk>/cancel/", views.match_cancel, name="match_cancel"),
    path("matches/<int:pk>/resign/", views.match_resign, name="match_resign"),
    path("matches/<int:pk>/rematch/", views.match_rematch, name="match_rematch"),
    path("matches/<int:pk>/watch/", views.match_watch, name="match_watch"),
    path("matches/<int:pk>/unwatch/", views.match_unwatch, name="match_unwatch"),
]
